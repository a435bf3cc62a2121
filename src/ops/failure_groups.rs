//! Failure groups: parked rows (and rows waiting for a retry) grouped by a fingerprint of their
//! `last_error`, so an operator sees "3 errors, 10,000 rows" instead of 10,000 rows. The
//! fingerprint is the error text with the parts that vary masked (numbers, UUIDs, hex, quoted
//! strings, addresses, durations, and the ` (+K more)` suffix grouped retry marks add); a
//! group's id is a short hash of the masking rules' version and the masked text only, so the
//! same error gives the same id on every run, machine and backend. Pure: no I/O.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::store::ops::RowView;

/// The masking rules' version: part of every group id, so ids change when the rules do.
pub const RULES_VERSION: &str = "2";

/// What a masked part becomes.
const UUID: &str = "<uuid>";
const HEX: &str = "<hex>";
const NUMBER: &str = "<n>";
const DURATION: &str = "<duration>";
const ADDRESS: &str = "<addr>";
const QUOTED: &str = "<str>";

/// The error text with its varying parts masked.
pub fn mask(error: &str) -> String {
    let text = strip_more_suffix(error.trim());
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // after `HTTP`, `status`, `os error`…: the code that follows is kept (401 is not 409)
    let mut code_next = false;
    let mut last_word = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '[' {
            if let Some(end) = bracketed_address_end(&chars, i) {
                out.push_str(ADDRESS);
                code_next = false;
                i = end;
                continue;
            }
        }
        // quoted strings: '…', "…", `…`
        if matches!(c, '\'' | '"' | '`') {
            if let Some(end) = chars[i + 1..].iter().position(|&d| d == c) {
                out.push(c);
                out.push_str(QUOTED);
                out.push(c);
                i += end + 2;
                continue;
            }
        }
        let opens_ipv6 = c == ':' && chars.get(i + 1) == Some(&':'); // `::1`
        // a token starts after a separator, or after the `:` of a quoted key (`"n":42`)
        let starts = i == 0
            || !is_word(chars[i - 1])
            || chars[i - 1] == ':' && (i < 2 || matches!(chars[i - 2], '"' | '\''));
        if (c.is_ascii_alphanumeric() || opens_ipv6) && starts {
            let end = token_end(&chars, i);
            let token: String = chars[i..end].iter().collect();
            let code = code_next && is_code(&token);
            code_next = CODE_WORDS.iter().any(|w| token.eq_ignore_ascii_case(w))
                || token.eq_ignore_ascii_case("error") && last_word.eq_ignore_ascii_case("os");
            last_word.clone_from(&token);
            if let Some(masked) = mask_token(&token).filter(|_| !code) {
                out.push_str(masked);
                i = end;
                continue;
            }
            // a word: keep it, but mask digits glued into it is not done (e.g. `sqlx_s_1`
            // stays, so statement names still tell errors apart)
            out.push_str(&token);
            i = end;
            continue;
        }
        code_next &= c.is_whitespace() || matches!(c, ':' | '=' | '#');
        out.push(c);
        i += 1;
    }
    out
}

/// The words after which a number is a code that tells errors apart, not a value that varies:
/// `HTTP 503`, `status 404`, `errno 13`, `code 3`, `SQLSTATE 40001`; and `os error 28` (an
/// `error` alone is not one: `error: 57 rows rejected` counts rows).
const CODE_WORDS: [&str; 5] = ["http", "status", "errno", "code", "sqlstate"];

/// A code: up to 5 digits.
fn is_code(token: &str) -> bool {
    (1..=5).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_digit())
}

/// `[::1]`, `[fe80::1]:8080`: the end of a bracketed IPv6 address and its port, when `start`
/// opens one.
fn bracketed_address_end(chars: &[char], start: usize) -> Option<usize> {
    let close = start + 1 + chars[start + 1..].iter().position(|&c| c == ']')?;
    let inner: String = chars[start + 1..close].iter().collect();
    if !is_ipv6(&inner) {
        return None;
    }
    let mut end = close + 1;
    if chars.get(end) == Some(&':') && chars.get(end + 1).is_some_and(char::is_ascii_digit) {
        end += 1;
        while chars.get(end).is_some_and(char::is_ascii_digit) {
            end += 1;
        }
    }
    Some(end)
}

/// `2001:db8::7`, `fe80::1`, `::ffff:10.0.0.7`: groups of up to 4 hex digits split by colons,
/// eight of them or fewer around one `::` (so a time, `10:30:00`, is not one).
fn is_ipv6(t: &str) -> bool {
    let groups: Vec<&str> = t.split(':').collect();
    let (last, head) = groups.split_last().expect("split gives one part at least");
    let hex = |g: &&str| g.len() <= 4 && g.chars().all(|c| c.is_ascii_hexdigit());
    let tail = hex(last) || is_ipv4(last);
    let whole = groups.len() == 8 && groups.iter().all(|g| !g.is_empty());
    let compressed = t.matches("::").count() == 1 && groups.len() <= 8;
    (whole || compressed)
        && head.iter().all(hex)
        && tail
        && t.chars().any(|c| c.is_ascii_hexdigit())
}

/// The group id of a masked error: 12 hex digits of SHA-256 over the rules' version and text.
pub fn group_id(masked: &str) -> String {
    let mut h = Sha256::new();
    h.update(RULES_VERSION.as_bytes());
    h.update(b"\n");
    h.update(masked.as_bytes());
    h.finalize()
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A group id as given on the command line (`requeue --group`): 12 hex digits, in lower case.
pub fn parse_group_id(text: &str) -> Result<String, String> {
    let id = text.trim().to_ascii_lowercase();
    if id.len() == 12 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(id)
    } else {
        Err("a group id is 12 hex digits, as inspect failed --group lists it".into())
    }
}

/// The id of the group an error falls in.
pub fn fingerprint(error: &str) -> String {
    group_id(&mask(error))
}

/// Grouped retry marks end in ` (+K more)`: the same error for K more rows of the chunk.
fn strip_more_suffix(text: &str) -> &str {
    if let Some(open) = text.rfind(" (+") {
        let tail = &text[open + 3..];
        if let Some(n) = tail.strip_suffix(" more)") {
            if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                return &text[..open];
            }
        }
    }
    text
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || c == ':'
}

/// The end of the token starting at `start`: letters, digits and the separators that hold
/// UUIDs, addresses, decimals and durations together (`-`, `.`, `:`, `_`, `/` after a
/// scheme is not included).
fn token_end(chars: &[char], start: usize) -> usize {
    let mut end = start;
    while end < chars.len() && is_word(chars[end]) {
        end += 1;
    }
    // a token does not end in a separator ("port 5432." keeps its full stop)
    while end > start + 1 && matches!(chars[end - 1], '.' | ':' | '-' | '_') {
        end -= 1;
    }
    end
}

/// The mask for a token that varies, `None` for a word to keep.
fn mask_token(token: &str) -> Option<&'static str> {
    if is_uuid(token) {
        return Some(UUID);
    }
    if is_address(token) {
        return Some(ADDRESS);
    }
    if is_duration(token) {
        return Some(DURATION);
    }
    if is_number(token) {
        return Some(NUMBER);
    }
    if is_hex(token) {
        return Some(HEX);
    }
    None
}

fn is_uuid(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `0x…`, or 8+ hex digits with at least one digit and one letter (ids, hashes, offsets).
fn is_hex(t: &str) -> bool {
    if let Some(rest) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return !rest.is_empty() && rest.chars().all(|c| c.is_ascii_hexdigit());
    }
    t.len() >= 8
        && t.chars().all(|c| c.is_ascii_hexdigit())
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(|c| c.is_ascii_alphabetic())
}

/// Digits with an optional decimal part (`42`, `19.90`, `1.5`), or dotted numbers that are not
/// an address (`1.2.3`).
fn is_number(t: &str) -> bool {
    !t.is_empty()
        && t.chars().next().is_some_and(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '_')
}

/// `1.002s`, `500ms`, `5m`, `2h`, `30µs`, `10us`, `3d`.
fn is_duration(t: &str) -> bool {
    let unit_at = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (n, unit) = t.split_at(unit_at);
    !n.is_empty()
        && n.chars().next().is_some_and(|c| c.is_ascii_digit())
        && matches!(
            unit,
            "ns" | "us" | "µs" | "ms" | "s" | "m" | "h" | "d" | "sec" | "min"
        )
}

/// `10.0.0.7`, `10.0.0.7:5672`, `broker-1:9092`, `2001:db8::7` (`[::1]:80` is taken whole by
/// [`bracketed_address_end`]).
fn is_address(t: &str) -> bool {
    if is_ipv6(t) {
        return true;
    }
    let (host, port) = match t.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => (h, Some(p)),
        _ => (t, None),
    };
    is_ipv4(host) || (port.is_some() && !host.is_empty() && !host.contains(':'))
}

/// `10.0.0.7`.
fn is_ipv4(host: &str) -> bool {
    host.split('.').count() == 4
        && host
            .split('.')
            .all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()))
}

/// One failure group: its rows' count and spread, and one error in full.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FailureGroup {
    pub id: String,
    pub count: i64,
    /// The masked error every row of the group shares.
    pub fingerprint: String,
    /// One row's error, as written.
    pub sample_error: String,
    pub routes: BTreeMap<String, i64>,
    pub tenants: BTreeMap<String, i64>,
    pub event_types: BTreeMap<String, i64>,
    /// `failed` and, with retrying rows, `pending`.
    pub statuses: BTreeMap<String, i64>,
    pub first_created_at: DateTime<Utc>,
    pub last_created_at: DateTime<Utc>,
    pub attempts_min: i32,
    pub attempts_max: i32,
}

impl FailureGroup {
    /// The attempts its rows have made: `5`, or `1-5` when they differ.
    pub fn attempts(&self) -> String {
        match self.attempts_min == self.attempts_max {
            true => self.attempts_min.to_string(),
            false => format!("{}-{}", self.attempts_min, self.attempts_max),
        }
    }

    /// A count per name, as a cell: `a 3, b 1`.
    pub fn spread(counts: &BTreeMap<String, i64>) -> String {
        let each: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        each.join(", ")
    }
}

/// Groups rows by the fingerprint of their `last_error` (rows without one form a group of
/// their own: the empty error), most rows first, then by id.
pub fn group(rows: &[RowView]) -> Vec<FailureGroup> {
    let mut groups: BTreeMap<String, FailureGroup> = BTreeMap::new();
    for r in rows {
        let error = r.last_error.as_deref().unwrap_or("");
        let masked = mask(error);
        let id = group_id(&masked);
        let g = groups.entry(id.clone()).or_insert_with(|| FailureGroup {
            id,
            count: 0,
            fingerprint: masked,
            sample_error: error.to_owned(),
            routes: BTreeMap::new(),
            tenants: BTreeMap::new(),
            event_types: BTreeMap::new(),
            statuses: BTreeMap::new(),
            first_created_at: r.created_at,
            last_created_at: r.created_at,
            attempts_min: r.attempts,
            attempts_max: r.attempts,
        });
        g.count += 1;
        *g.routes.entry(r.route.clone()).or_default() += 1;
        let tenant = r
            .tenant_id
            .map_or_else(|| "-".to_owned(), |t| t.to_string());
        *g.tenants.entry(tenant).or_default() += 1;
        *g.event_types.entry(r.event_type.clone()).or_default() += 1;
        *g.statuses.entry(r.status.clone()).or_default() += 1;
        g.first_created_at = g.first_created_at.min(r.created_at);
        g.last_created_at = g.last_created_at.max(r.created_at);
        g.attempts_min = g.attempts_min.min(r.attempts);
        g.attempts_max = g.attempts_max.max(r.attempts);
    }
    let mut out: Vec<FailureGroup> = groups.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.id.cmp(&b.id)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_that_vary_are_masked() {
        let cases = [
            (
                "HTTP 503 from 10.0.0.7:8080 after 1.002s (+31 more)",
                "HTTP 503 from <addr> after <duration>",
            ),
            (
                "Kafka produce to stall.orders: Message production error: MessageTimedOut (Local: Message timed out) (new producer)",
                "Kafka produce to stall.orders: Message production error: MessageTimedOut (Local: Message timed out) (new producer)",
            ),
            (
                "order 0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e refused: 'no stock for sku-42' at offset 0x1f3a",
                "order <uuid> refused: '<str>' at offset <hex>",
            ),
            (
                "publish timed out after 500ms to broker-1:9092",
                "publish timed out after <duration> to <addr>",
            ),
            (
                "No space left on device (os error 28)",
                "No space left on device (os error 28)",
            ),
            (
                "HTTP 409: {\"error\":\"conflict\",\"order\":1234}",
                "HTTP 409: {\"<str>\":\"<str>\",\"<str>\":<n>}",
            ),
            (
                "connect to [2001:db8::7]:8443 refused; fallback fe80::1%2 and ::ffff:10.0.0.7, status=503",
                "connect to <addr> refused; fallback <addr>%<n> and <addr>, status=503",
            ),
            (
                "error: 57 rows rejected, Error 12 (os error 13)",
                "error: <n> rows rejected, Error <n> (os error 13)",
            ),
            (
                "retry 3 of HTTP/1.1 at 10:30:00, code 17 after 2 tries",
                "retry <n> of HTTP/<n> at 10:30:00, code 17 after <n> tries",
            ),
            (
                "total \"19.90\" exceeds 12.5 for tenant deadbeef1234",
                "total \"<str>\" exceeds <n> for tenant <hex>",
            ),
        ];
        for (error, masked) in cases {
            assert_eq!(mask(error), masked, "{error}");
        }
    }

    #[test]
    fn the_same_error_gets_the_same_id_and_different_errors_do_not() {
        let a = fingerprint("HTTP 503 from 10.0.0.7:8080 after 1.002s");
        let b = fingerprint("HTTP 503 from 10.0.0.9:8080 after 0.3s (+4 more)");
        let c = fingerprint("HTTP 404 from 10.0.0.7:8080 after 1.002s");
        assert_eq!(a, b);
        assert_eq!(a, fingerprint("HTTP 503 from 1.2.3.4 after 9ms"));
        assert_ne!(a, fingerprint("HTTP <n> from <addr> after"));
        // numbers are masked, but not a status code: 503 and 404 are two groups
        assert_ne!(a, c);
        assert_eq!(
            fingerprint("HTTP 401: {\"error\":\"unauthorized\"}"),
            fingerprint("HTTP 401: {\"error\":\"token expired\"}")
        );
        assert_ne!(
            fingerprint("HTTP 401: {\"error\":\"unauthorized\"}"),
            fingerprint("HTTP 409: {\"error\":\"conflict\"}")
        );
        assert_ne!(a, fingerprint("Redis 503 from 10.0.0.7:8080 after 1.002s"));
        // stable across runs, machines and backends: the id is the hash of version and text
        assert_eq!(group_id("HTTP 503 from <addr> after <duration>"), a);
        assert_eq!(parse_group_id(&a.to_uppercase()), Ok(a.clone()));
        for bad in ["", "478651ef7d6", "c371b0a14581z", "478651ef7d6g"] {
            assert!(parse_group_id(bad).is_err(), "{bad}");
        }
        assert_eq!(a.len(), 12);
        // SHA-256 of "2\nHTTP 503 from <addr> after <duration>", computed apart (Python's
        // hashlib): a change here means the rules or the hash changed; bump RULES_VERSION
        assert_eq!(a, "c371b0a14581");
    }

    #[test]
    fn groups_count_and_spread() {
        let row = |route: &str, error: &str, attempts: i32, secs: i64| RowView {
            id: uuid::Uuid::now_v7(),
            event_id: uuid::Uuid::now_v7(),
            route: route.into(),
            event_type: "order.placed".into(),
            tenant_id: None,
            ordering_key: None,
            status: "failed".into(),
            attempts,
            available_at: None,
            created_at: DateTime::from_timestamp(1_764_583_200 + secs, 0).unwrap(),
            last_error: Some(error.into()),
        };
        let rows = [
            row("a", "HTTP 503 after 1s", 5, 3),
            row("b", "HTTP 503 after 2s", 3, 1),
            row("a", "permission denied for table outbox", 1, 2),
            row("a", "HTTP 503 after 9ms (+2 more)", 4, 5),
        ];
        let groups = group(&rows);
        assert_eq!(groups.len(), 2);
        let g = &groups[0];
        assert_eq!((g.count, g.attempts_min, g.attempts_max), (3, 3, 5));
        assert_eq!(g.routes, BTreeMap::from([("a".into(), 2), ("b".into(), 1)]));
        assert_eq!(g.first_created_at, rows[1].created_at);
        assert_eq!(g.last_created_at, rows[3].created_at);
        assert_eq!(g.sample_error, "HTTP 503 after 1s");
        assert_eq!(groups[1].count, 1);
        assert_eq!(
            (g.attempts(), groups[1].attempts()),
            ("3-5".into(), "1".into())
        );
        assert_eq!(FailureGroup::spread(&g.routes), "a 2, b 1");
    }
}
