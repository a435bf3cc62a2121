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
pub const RULES_VERSION: &str = "1";

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
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
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
        if c.is_ascii_alphanumeric() && (i == 0 || !is_word(chars[i - 1])) {
            let end = token_end(&chars, i);
            let token: String = chars[i..end].iter().collect();
            if let Some(masked) = mask_token(&token) {
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
        out.push(c);
        i += 1;
    }
    out
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

/// `10.0.0.7`, `10.0.0.7:5672`, `broker-1:9092`, `[::1]:80` is not handled (rare in errors).
fn is_address(t: &str) -> bool {
    let (host, port) = match t.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => (h, Some(p)),
        _ => (t, None),
    };
    let ipv4 = host.split('.').count() == 4
        && host
            .split('.')
            .all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()));
    ipv4 || (port.is_some() && !host.is_empty() && !host.contains(':'))
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
                "HTTP <n> from <addr> after <duration>",
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
                "No space left on device (os error <n>)",
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
        assert_eq!(a, fingerprint("HTTP 7 from 1.2.3.4 after 9ms"));
        assert_ne!(a, fingerprint("HTTP <n> from <addr> after"));
        // numbers are masked, so 503 and 404 share a group; words are not
        assert_eq!(a, c);
        assert_ne!(a, fingerprint("Redis 503 from 10.0.0.7:8080 after 1.002s"));
        // stable across runs, machines and backends: the id is the hash of version and text
        assert_eq!(group_id("HTTP <n> from <addr> after <duration>"), a);
        assert_eq!(parse_group_id(&a.to_uppercase()), Ok(a.clone()));
        for bad in ["", "478651ef7d6", "478651ef7d6dz", "478651ef7d6g"] {
            assert!(parse_group_id(bad).is_err(), "{bad}");
        }
        assert_eq!(a.len(), 12);
        // SHA-256 of "1\nHTTP <n> from <addr> after <duration>", computed apart (Python's
        // hashlib): a change here means the rules or the hash changed; bump RULES_VERSION
        assert_eq!(a, "478651ef7d6d");
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
            row("b", "HTTP 502 after 2s", 3, 1),
            row("a", "permission denied for table outbox", 1, 2),
            row("a", "HTTP 504 after 9ms (+2 more)", 4, 5),
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
    }
}
