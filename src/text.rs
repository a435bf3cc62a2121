//! Text as messages and table cells show it.

/// `text` cut to its first `most` characters, with `…` when anything was cut.
pub fn clip(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// An error chain on one line, as `error:` prints it (a destination's message too, where a
/// library's own line names no cause: reqwest's "error sending request"): each cause after a
/// `: `, except a cause whose text the line already holds (a typed error shows its driver's
/// message itself and also carries the driver's error as its source).
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    for cause in chain(error) {
        let text = cause.to_string();
        let first = text.lines().next().unwrap_or_default();
        if line.contains(first) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// An error and its sources, outermost first.
pub fn chain<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |e| e.source())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_at_a_character_not_a_byte() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("", 3), "");
    }
}
