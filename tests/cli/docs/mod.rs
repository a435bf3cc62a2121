//! The manual is tested like code, without any server: every command has its page under
//! `docs/commands/`, every relative link in `README.md` and `docs/` resolves (the file, and the
//! heading an anchor names), and every `outboxctl …` example in a shell block of them is accepted
//! by the command line's clap definition. Each check collects everything wrong and prints it;
//! the `*_is_caught` tests feed each check a mistake to prove it can fail.
//!
//! The rules, in one place:
//! - Pages: a command's page is `docs/commands/<name>.md`, or the page [`SHARED_PAGES`] names
//!   (`discard` lives with `requeue`, `man` with `completions`); the page's title names
//!   `` `outboxctl <name> ``; every file in `docs/commands/` is some command's page; the index
//!   `docs/README.md` links to each of them.
//! - Links: inline links `[text](target)` outside fenced blocks and code spans. A target with a
//!   scheme (`https://`, `mailto:`) is not followed. The path is relative to the file and must
//!   exist (file or folder); an anchor on a Markdown file (or alone, for the same file) must be
//!   the GitHub slug of one of its headings (lower case; letters, digits, `-` and `_` kept,
//!   spaces become `-`, the rest dropped; a repeated heading gets `-1`, `-2`, …).
//! - Examples: fenced blocks tagged `sh`, `shell`, `bash`, `console`, `cron` or untagged (not
//!   `text`, `yaml`, `rust`, …). A line ending in `\` continues on the next. Words are split as a
//!   shell does (single and double quotes, backslash); a word starting with `#` ends the line (a
//!   comment); a placeholder such as `<last id of the previous page>` is one word. The example is
//!   the words after the first word `outboxctl`, up to a control operator or a redirection (`|`,
//!   `||`, `&&`, `;`, `&`, a word starting with `>`, `2>` or `<`). A line with a command
//!   substitution (`$(` or a backtick) is skipped. clap must accept the words
//!   (`try_get_matches_from`); `--help` and `--version` count as accepted. Values are checked
//!   by clap's own parsers (ids, durations, numbers, enums), except a `<placeholder>` value;
//!   what only a run checks (a URL's reachability, a route's existence) is not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use clap::CommandFactory;

mod shell;

use shell::{command_lines, is_operator, shell_words};

/// Commands documented on another command's page: (command, the page's name).
const SHARED_PAGES: [(&str, &str); 2] = [("discard", "requeue"), ("man", "completions")];

/// Fenced blocks whose lines are shell commands.
const SHELL_TAGS: [&str; 6] = ["", "sh", "shell", "bash", "console", "cron"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `README.md` and every Markdown file under `docs/`, sorted.
fn manual_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A path relative to the crate, for messages.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn fail_if_any(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s)\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

// --- Markdown, as little of it as the checks need -------------------------------------------

/// A fenced code block: its tag (the info string's first word) and its lines with their
/// 1-based line numbers.
struct Block {
    tag: String,
    lines: Vec<(usize, String)>,
}

/// Splits a Markdown text into the prose outside fenced blocks (fence lines and block lines
/// blanked, so line numbers stay) and the fenced blocks.
fn split_fences(text: &str) -> (String, Vec<Block>) {
    let mut prose = String::new();
    let mut blocks = Vec::new();
    let mut open: Option<(String, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let fence: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let is_fence = fence.len() >= 3 && fence.chars().all(|c| c == fence.as_bytes()[0] as char);
        match open.take() {
            None if is_fence => {
                let tag = trimmed[fence.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                open = Some((
                    fence,
                    Block {
                        tag,
                        lines: Vec::new(),
                    },
                ));
            }
            None => prose.push_str(line),
            Some((marker, block))
                if is_fence
                    && fence.starts_with(&marker)
                    && trimmed[fence.len()..].trim().is_empty() =>
            {
                blocks.push(block);
            }
            Some((marker, mut block)) => {
                block.lines.push((i + 1, line.to_owned()));
                open = Some((marker, block));
            }
        }
        prose.push('\n');
    }
    if let Some((_, block)) = open {
        blocks.push(block);
    }
    (prose, blocks)
}

/// Blanks code spans (`` `…` ``, of any number of backticks, across line ends), keeping line
/// ends so line numbers stay.
fn blank_code_spans(prose: &str) -> String {
    let chars: Vec<char> = prose.chars().collect();
    let mut out = String::with_capacity(prose.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // the closing run: exactly `run` backticks
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let n = chars[j..].iter().take_while(|&&c| c == '`').count();
                if n == run {
                    close = Some(j);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                for &c in &chars[i..j + run] {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
                i = j + run;
            }
            None => {
                out.extend(std::iter::repeat_n('`', run));
                i += run;
            }
        }
    }
    out
}

/// Inline link targets `[text](target)` in prose (code already blanked), with line numbers.
fn link_targets(prose: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in prose.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            // a title after the target: [x](path "title")
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((i + 1, target.to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text's headings (outside fenced blocks), repeats numbered.
fn anchors(text: &str) -> BTreeSet<String> {
    let (prose, _) = split_fences(text);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose.lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim().trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// What is wrong with the relative links of one Markdown file (`path`, with `text`).
fn broken_links(path: &Path, text: &str) -> Vec<String> {
    let (prose, _) = split_fences(text);
    let dir = path.parent().expect("a file has a folder");
    let mut problems = Vec::new();
    for (line, target) in link_targets(&blank_code_spans(&prose)) {
        let at = format!("{}:{line}: ({target})", shown(path));
        if target.is_empty() {
            problems.push(format!("{at}: an empty link"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if file.is_empty() {
            path.to_path_buf()
        } else {
            normalise(&dir.join(file))
        };
        if !file.is_empty() && !resolved.exists() {
            problems.push(format!("{at}: {} does not exist", shown(&resolved)));
            continue;
        }
        if !resolved.starts_with(root()) {
            problems.push(format!("{at}: points outside the repository"));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if resolved.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let known = if resolved == path {
            anchors(text)
        } else {
            anchors(&read(&resolved))
        };
        if !known.contains(anchor) {
            problems.push(format!(
                "{at}: {} has no heading #{anchor} (it has: {})",
                shown(&resolved),
                known.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    problems
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The `outboxctl …` examples of a Markdown text: (line, the line as written, its arguments).
/// Lines with a command substitution are left out.
fn examples(text: &str) -> Vec<(usize, String, Vec<String>)> {
    let (_, blocks) = split_fences(text);
    let mut out = Vec::new();
    for block in blocks
        .iter()
        .filter(|b| SHELL_TAGS.contains(&b.tag.as_str()))
    {
        for (line, command) in command_lines(block) {
            if command.contains("$(") || command.contains('`') {
                continue;
            }
            let words = shell_words(&command);
            let Some(at) = words
                .iter()
                .position(|w| !w.literal && w.text == "outboxctl")
            else {
                continue;
            };
            let args = words[at + 1..]
                .iter()
                .take_while(|w| !is_operator(w))
                .map(|w| w.text.clone())
                .collect();
            out.push((line, command.trim().to_owned(), args));
        }
    }
    out
}

/// Whether clap accepts the arguments; the first line of its error otherwise.
fn clap_accepts(args: &[String]) -> Result<(), String> {
    let argv = std::iter::once("outboxctl".to_owned()).chain(args.iter().cloned());
    match outboxctl::cli::Cli::command().try_get_matches_from(argv) {
        Ok(_) => Ok(()),
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            Ok(())
        }
        // a `<placeholder>` stands for a value; only a run could check it
        Err(e)
            if matches!(
                e.get(clap::error::ContextKind::InvalidValue),
                Some(clap::error::ContextValue::String(v)) if v.starts_with('<') && v.ends_with('>')
            ) =>
        {
            Ok(())
        }
        Err(e) => Err(e.to_string().lines().next().unwrap_or("refused").to_owned()),
    }
}

/// What is wrong with the examples of one Markdown file, and how many it has.
fn refused_examples(path: &Path, text: &str) -> (Vec<String>, usize) {
    let found = examples(text);
    let problems = found
        .iter()
        .filter_map(|(line, command, args)| {
            clap_accepts(args)
                .err()
                .map(|e| format!("{}:{line}: {command}\n    {e}", shown(path)))
        })
        .collect();
    (problems, found.len())
}

// --- command pages ---------------------------------------------------------------------------

/// The top-level commands of the clap definition (without `help`).
fn command_names() -> Vec<String> {
    outboxctl::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .filter(|n| n != "help")
        .collect()
}

fn page_name(command: &str) -> &str {
    SHARED_PAGES
        .iter()
        .find(|(c, _)| *c == command)
        .map_or(command, |(_, page)| page)
}

/// What is wrong with the command pages in `pages` (a `docs/commands/` folder) for `commands`,
/// and the index text that must link to each.
fn page_problems(commands: &[String], pages: &Path, index: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut wanted = BTreeSet::new();
    for command in commands {
        let page = page_name(command);
        wanted.insert(format!("{page}.md"));
        let path = pages.join(format!("{page}.md"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            problems.push(format!(
                "`outboxctl {command}` has no page: {} is missing",
                shown(&path)
            ));
            continue;
        };
        let title = text.lines().find(|l| l.starts_with("# ")).unwrap_or("");
        if !title.contains(&format!("`outboxctl {command}")) {
            problems.push(format!(
                "{}: its title should name `outboxctl {command}`, it is {title:?}",
                shown(&path)
            ));
        }
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(pages)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    for stale in on_disk.difference(&wanted) {
        problems.push(format!(
            "{}: no command has this page (a command renamed or removed? or add it to SHARED_PAGES)",
            shown(&pages.join(stale))
        ));
    }
    for page in &wanted {
        if !index.contains(&format!("(commands/{page})")) {
            problems.push(format!("docs/README.md does not link to commands/{page}"));
        }
    }
    problems
}

// --- the checks ------------------------------------------------------------------------------

#[test]
fn every_command_has_its_page() {
    let commands = command_names();
    assert!(commands.len() >= 16, "found only {commands:?}");
    let index = read(&root().join("docs/README.md"));
    fail_if_any(
        "command pages",
        &page_problems(&commands, &root().join("docs/commands"), &index),
    );
}

#[test]
fn every_relative_link_resolves() {
    let files = manual_files();
    assert!(
        files.len() > 20,
        "found only {} Markdown files",
        files.len()
    );
    let problems: Vec<String> = files
        .iter()
        .flat_map(|path| broken_links(path, &read(path)))
        .collect();
    fail_if_any("links", &problems);
}

#[test]
fn every_example_parses() {
    let mut problems = Vec::new();
    let mut count = 0;
    for path in manual_files() {
        let (refused, found) = refused_examples(&path, &read(&path));
        problems.extend(refused);
        count += found;
    }
    assert!(
        count > 100,
        "found only {count} examples: is the parser broken?"
    );
    fail_if_any("examples clap refuses", &problems);
}

/// Every configuration the manual shows (a YAML block of top-level keys) loads as written: the
/// reference example set a delivery log beside `storage: retain`, which every command refused.
#[test]
fn every_configuration_example_loads() {
    let mut problems = Vec::new();
    let mut found = 0;
    for path in manual_files() {
        let (_, blocks) = split_fences(&read(&path));
        for block in blocks.iter().filter(|b| b.tag == "yaml") {
            let Some(&(line, _)) = block.lines.first() else {
                continue;
            };
            let text: String = block.lines.iter().map(|(_, l)| format!("{l}\n")).collect();
            let dir = std::env::temp_dir()
                .join("outboxctl-tests")
                .join("docs-yaml");
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join(format!("{}-{line}.yaml", shown(&path).replace('/', "_")));
            std::fs::write(&file, &text).unwrap();
            found += 1;
            let r =
                crate::common::ob(["--config", file.to_str().unwrap(), "schema", "print"]).run();
            if r.code != 0 {
                problems.push(format!("{}:{line}: {}", shown(&path), r.stderr.trim()));
            }
        }
    }
    assert!(found >= 2, "the walk found {found} YAML blocks");
    fail_if_any("configuration examples that do not load", &problems);
}

#[test]
fn the_readme_is_a_front_door() {
    let size = read(&root().join("README.md")).len();
    assert!(size <= 20 * 1024, "README.md is {size} bytes, over 20 KiB");
}

// --- each check can fail ---------------------------------------------------------------------

#[test]
fn a_refused_example_is_caught() {
    let text = "```sh\n\
                outboxctl relay --once --route orders   # fine\n\
                outboxctl relay --bogus\n\
                echo x | outboxctl inspect failed --limit many > out.txt\n\
                outboxctl replay --route orders --since 2h \\\n  --to stdout --rate fast\n\
                outboxctl inspect failed --after <last id of the previous page>\n\
                outboxctl requeue --id \"$(cat ids)\"\n\
                ```\n\
                ```text\noutboxctl not checked here\n```\n";
    let (problems, found) = refused_examples(&root().join("docs/x.md"), text);
    assert_eq!(found, 5, "{problems:?}");
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("docs/x.md:3: outboxctl relay --bogus"));
    assert!(problems[1].contains("--limit many"));
    assert!(problems[2].starts_with("docs/x.md:5:"), "{}", problems[2]);
}

#[test]
fn shell_words_split_as_a_shell_does() {
    let words = shell_words(
        r#"outboxctl emit --payload '{"a": 1}' --type "a \"b\"" x\ y --after <last id> | jq . # note"#,
    );
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "outboxctl",
            "emit",
            "--payload",
            r#"{"a": 1}"#,
            "--type",
            r#"a "b""#,
            "x y",
            "--after",
            "<last id>",
            "|",
            "jq",
            "."
        ]
    );
    assert!(is_operator(&words[9]));
    assert!(!is_operator(&words[8]));
}

#[test]
fn a_broken_link_is_caught() {
    let path = root().join("docs/x.md");
    let text = "# A page\n\n## Second part\n\n\
                [fine](playbook.md) [fine](#second-part) [fine](../README.md#outboxctl)\n\
                [gone](nowhere.md) and [no heading](playbook.md#no-such-heading)\n\
                [self](#nothing-here) `[in code](nowhere.md)` [web](https://example.com/x)\n\
                ```md\n[in a block](nowhere.md)\n```\n";
    let problems = broken_links(&path, text);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("docs/x.md:6: (nowhere.md)"));
    assert!(problems[1].contains("no heading #no-such-heading"));
    assert!(problems[2].contains("docs/x.md:7: (#nothing-here)"));
}

#[test]
fn anchors_are_githubs() {
    let got = anchors(
        "# `outboxctl storage status | to-consume`\n## Retain → consume\n## Cron\n## Cron\n\
         ```sh\n# not a heading\n```\n",
    );
    let want: BTreeSet<String> = [
        "outboxctl-storage-status--to-consume",
        "retain--consume",
        "cron",
        "cron-1",
    ]
    .map(String::from)
    .into();
    assert_eq!(got, want);
}

#[test]
fn a_missing_page_is_caught() {
    let commands = ["relay".to_owned(), "frobnicate".to_owned()];
    let index = "[relay](commands/relay.md)";
    let problems = page_problems(&commands, &root().join("docs/commands"), index);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`outboxctl frobnicate` has no page")),
        "{problems:#?}"
    );
    // the pages of the real commands are then stale, and the index lacks frobnicate
    assert!(
        problems
            .iter()
            .any(|p| p.contains("migrate.md: no command"))
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("does not link to commands/frobnicate.md"))
    );
}
