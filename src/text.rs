//! Text as messages and table cells show it.

/// `text` cut to its first `most` characters, with `…` when anything was cut.
pub fn clip(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// An optional value as a cell: empty when there is none.
pub fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// Milliseconds as a cell, to a tenth (empty when there are none).
pub fn ms(value: Option<f64>) -> String {
    opt(value.map(|v| format!("{v:.1}")))
}

/// A comma-separated header with a `tenant` column after its first when `tenants`.
pub fn with_tenant(tenants: bool, header: &str) -> String {
    match (tenants, header.split_once(',')) {
        (true, Some((first, rest))) => format!("{first},tenant,{rest}"),
        _ => header.to_owned(),
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
        // sqlx words a server's error "error returned from database: MESSAGE": told already
        let first = first
            .strip_prefix("error returned from database: ")
            .unwrap_or(first);
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

    /// A cause is told once: sqlx's "error returned from database: MESSAGE" after a line that
    /// holds MESSAGE already adds nothing.
    #[test]
    fn a_cause_told_already_is_not_told_again() {
        #[derive(Debug)]
        struct E(&'static str, Option<Box<E>>);
        impl std::fmt::Display for E {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for E {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.1.as_deref().map(|e| e as _)
            }
        }
        let sqlx = E("error returned from database: cannot drop table t", None);
        let e = E(
            "dropping t failed: cannot drop table t",
            Some(Box::new(sqlx)),
        );
        assert_eq!(one_line(&e), "dropping t failed: cannot drop table t");
        let other = E("error returned from database: deadlock detected", None);
        let e = E("dropping t failed", Some(Box::new(other)));
        assert_eq!(
            one_line(&e),
            "dropping t failed: error returned from database: deadlock detected"
        );
    }

    #[test]
    fn clips_at_a_character_not_a_byte() {
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("", 3), "");
    }
}
