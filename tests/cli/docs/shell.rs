//! Shell words, as far as the manual's examples need them: quotes, backslashes, a `#`
//! comment, `<placeholders>` as one word, operators that end a command, and the command lines
//! of a fenced block (a line ending in `\` continues on the next).

use super::Block;

/// One shell word, and whether it was quoted (or a `<placeholder>`), so that it cannot be an
/// operator.
#[derive(Debug, PartialEq)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) literal: bool,
}

/// Splits a command line into words as a shell does, as far as the examples need: quotes,
/// backslashes, a `#` comment, `<placeholders>` as one word.
pub(super) fn shell_words(line: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        if first == '#' {
            break;
        }
        if first == '<' {
            chars.next();
            if chars
                .peek()
                .is_some_and(|c| !c.is_whitespace() && *c != '<')
            {
                let mut text = String::from("<");
                for c in chars.by_ref() {
                    text.push(c);
                    if c == '>' {
                        break;
                    }
                }
                words.push(Word {
                    text,
                    literal: true,
                });
            } else {
                words.push(Word {
                    text: "<".into(),
                    literal: false,
                });
            }
            continue;
        }
        let mut text = String::new();
        let mut literal = false;
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '\'' => {
                    literal = true;
                    for c in chars.by_ref() {
                        if c == '\'' {
                            break;
                        }
                        text.push(c);
                    }
                }
                '"' => {
                    literal = true;
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' if chars.peek().is_some_and(|n| "\"\\$`".contains(*n)) => {
                                text.push(chars.next().expect("peeked"));
                            }
                            c => text.push(c),
                        }
                    }
                }
                '\\' => {
                    if let Some(next) = chars.next() {
                        text.push(next);
                    }
                }
                c => text.push(c),
            }
        }
        words.push(Word { text, literal });
    }
    words
}

pub(super) fn is_operator(word: &Word) -> bool {
    !word.literal
        && (["|", "||", "&&", ";", "&"].contains(&word.text.as_str())
            || word.text.starts_with('>')
            || word.text.starts_with("2>")
            || word.text.starts_with('<'))
}

/// The logical command lines of a shell block (continuations joined), each with the number of
/// its first line.
pub(super) fn command_lines(block: &Block) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in &block.lines {
        let (start, mut joined) = pending.take().unwrap_or((*n, String::new()));
        match line.trim_end().strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(line);
                out.push((start, joined));
            }
        }
    }
    out.extend(pending);
    out
}
