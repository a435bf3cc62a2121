//! The outbox's data: statuses, a claimed row, and the message a relay publishes for it
//! (headers exactly as forze writes them). No I/O.

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};
use serde::Serialize;
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::hlc::HlcTimestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Processing,
    Published,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Processing => "processing",
            Status::Published => "published",
            Status::Failed => "failed",
        }
    }
}

/// A row as a claim returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxRow {
    pub id: Uuid,
    pub route: String,
    pub event_id: Uuid,
    pub event_type: String,
    pub tenant_id: Option<Uuid>,
    pub execution_id: Option<Uuid>,
    pub correlation_id: Option<Uuid>,
    pub causation_id: Option<Uuid>,
    pub occurred_at: DateTime<Utc>,
    /// The stored JSON, as text (passed through, never re-parsed into numbers).
    pub payload: String,
    pub attempts: i32,
    pub ordering_key: Option<String>,
    pub created_at: DateTime<Utc>,
    pub hlc: Option<i64>,
    pub traceparent: Option<String>,
}

impl OutboxRow {
    /// The broker key: `ordering_key`, or the event id when it is NULL or empty.
    pub fn key(&self) -> String {
        match &self.ordering_key {
            Some(k) if !k.is_empty() => k.clone(),
            _ => uuid_text(self.event_id),
        }
    }

    /// The strict-order key: (tenant, broker key), as the strict claim index is built. Under
    /// `key_order: strict` a failed row holds back the later rows of its (tenant, key); rows of
    /// another tenant with the same key do not wait for it. (On the wire, rows of one broker key
    /// go one at a time whatever their tenant: see the engine's `publish_chunk`.) A row without
    /// an ordering key is its own key (its event id).
    pub fn order_key(&self) -> (Option<uuid::Uuid>, String) {
        (self.tenant_id, self.key())
    }

    /// The envelope headers, in forze's order, values as strings.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        // at most 8 headers: one allocation
        let mut h = Vec::with_capacity(8);
        h.push(("forze_event_id", uuid_text(self.event_id)));
        h.push(("forze_occurred_at", python_isoformat(self.occurred_at)));
        let ids = [
            ("forze_correlation_id", self.correlation_id),
            ("forze_causation_id", self.causation_id),
            ("forze_execution_id", self.execution_id),
            ("forze_tenant_id", self.tenant_id),
        ];
        for (name, value) in ids {
            if let Some(v) = value {
                h.push((name, uuid_text(v)));
            }
        }
        if let Some(packed) = self.hlc {
            if let Ok(t) = HlcTimestamp::unpack(packed) {
                h.push(("forze_hlc", t.encode()));
            }
        }
        if let Some(tp) = &self.traceparent {
            h.push(("traceparent", tp.clone()));
        }
        h
    }
}

/// A UUID as `str(uuid)` writes it (hyphenated, lower case), without the formatting machinery of
/// `to_string`: every message has one to four.
fn uuid_text(u: Uuid) -> String {
    u.hyphenated()
        .encode_lower(&mut Uuid::encode_buffer())
        .to_owned()
}

/// A route named by a flag (`--route`): not empty and no control character (an empty one
/// matched nothing and exited 0; one with a control character was staged as it was given).
pub fn parse_route(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("a route name is never empty".into());
    }
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(format!("a route name holds no control character ({c:?})"));
    }
    if text.trim() != text {
        return Err(format!(
            "{text:?} starts or ends with a space: a route name has none (a quoting slip)"
        ));
    }
    Ok(text.to_owned())
}

/// An ordering key or event type given on the command line: never empty or blank (an unset
/// shell variable), which would stage or select a key no event means.
pub fn parse_given(text: &str) -> Result<String, String> {
    match text.trim().is_empty() {
        true => Err("it is empty: leave the flag out for none (an unset variable?)".into()),
        false => Ok(text.to_owned()),
    }
}

/// `datetime.isoformat()` of a UTC datetime: `.ffffff` only when microseconds are non-zero,
/// offset `+00:00`, never `Z`.
///
/// Written digit by digit: every message carries one, and chrono's `format` parses its pattern
/// on each call (`write!` cost a twentieth of a consume relay's CPU). A year outside 0–9999
/// (PostgreSQL's range is wider than Python's) goes through `write!`, as `{:04}` writes it.
pub fn python_isoformat(t: DateTime<Utc>) -> String {
    let mut out = String::with_capacity(32);
    match u32::try_from(t.year()).ok().filter(|y| *y <= 9999) {
        Some(year) => push_digits(&mut out, year, 4),
        None => {
            use std::fmt::Write;
            let _ = write!(out, "{:04}", t.year());
        }
    }
    for (sep, n) in [
        ('-', t.month()),
        ('-', t.day()),
        ('T', t.hour()),
        (':', t.minute()),
        (':', t.second()),
    ] {
        out.push(sep);
        push_digits(&mut out, n, 2);
    }
    let micros = t.nanosecond() / 1000 % 1_000_000;
    if micros != 0 {
        out.push('.');
        push_digits(&mut out, micros, 6);
    }
    out.push_str("+00:00");
    out
}

/// `n`'s last `width` decimal digits, zero-padded.
fn push_digits(out: &mut String, mut n: u32, width: usize) {
    let mut digits = [b'0'; 6];
    for d in digits[..width].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    digits[..width]
        .iter()
        .for_each(|&d| out.push(char::from(d)));
}

/// RFC 3339 for our own JSON output (always UTC, `Z`).
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Removes insignificant whitespace from valid JSON text, leaving every number, string and key
/// byte for byte: the compact form forze's transports emit, with no precision loss.
pub fn compact_json(text: &str) -> String {
    // byte by byte: a multi-byte character's bytes are never ASCII, so they are copied as they are
    let mut out = Vec::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(b);
        }
    }
    String::from_utf8(out).expect("only ASCII whitespace was removed")
}

/// One message, as every destination publishes it.
#[derive(Debug, Clone)]
pub struct Message {
    pub id: Uuid,
    pub event_id: Uuid,
    pub route: String,
    pub event_type: String,
    pub key: String,
    /// The row's own ordering key (NULL stays `None`; `key` has the fallback).
    pub ordering_key: Option<String>,
    pub tenant_id: Option<Uuid>,
    /// Compact JSON text of the payload.
    pub payload: Box<RawValue>,
    pub headers: Vec<(&'static str, String)>,
}

#[derive(Serialize)]
struct Line<'a> {
    id: &'a Uuid,
    event_id: &'a Uuid,
    route: &'a str,
    #[serde(rename = "type")]
    event_type: &'a str,
    key: &'a str,
    tenant_id: &'a Option<Uuid>,
    payload: &'a RawValue,
    headers: Headers<'a>,
}

struct Headers<'a>(&'a [(&'static str, String)]);

impl Serialize for Headers<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Message {
    /// Builds the message for a row; fails only when the stored payload is not JSON (poison).
    pub fn from_row(row: &OutboxRow) -> Result<Self, serde_json::Error> {
        let payload = RawValue::from_string(compact_json(&row.payload))?;
        Ok(Self {
            id: row.id,
            event_id: row.event_id,
            route: row.route.clone(),
            event_type: row.event_type.clone(),
            key: row.key(),
            ordering_key: row.ordering_key.clone(),
            tenant_id: row.tenant_id,
            payload,
            headers: row.headers(),
        })
    }

    /// The JSON-lines object: `{"id","event_id","route","type","key","tenant_id","payload","headers"}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.line()).expect("messages serialise")
    }

    /// [`Message::to_json`] appended to `out` (a destination's buffer), without a string of
    /// its own.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        serde_json::to_writer(out, &self.line()).expect("messages serialise");
    }

    fn line(&self) -> Line<'_> {
        Line {
            id: &self.id,
            event_id: &self.event_id,
            route: &self.route,
            event_type: &self.event_type,
            key: &self.key,
            tenant_id: &self.tenant_id,
            payload: &self.payload,
            headers: Headers(&self.headers),
        }
    }

    /// The headers as one JSON object (insertion order kept).
    pub fn headers_json(&self) -> String {
        serde_json::to_string(&Headers(&self.headers)).expect("headers serialise")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn worked_example() -> OutboxRow {
        OutboxRow {
            id: Uuid::nil(),
            route: "orders".into(),
            event_id: "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e".parse().unwrap(),
            event_type: "order.placed".into(),
            tenant_id: None,
            execution_id: None,
            correlation_id: Some("0190c4e2-8a6c-7e4a-9b1e-000000000001".parse().unwrap()),
            causation_id: None,
            occurred_at: Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap(),
            payload: r#"{"total": "19.90", "order_id": 42}"#.into(),
            attempts: 0,
            ordering_key: Some("order-42".into()),
            created_at: Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap(),
            hlc: Some(115_643_724_595_200_003),
            traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into()),
        }
    }

    #[test]
    fn headers_match_the_worked_example() {
        let h = worked_example().headers();
        let names: Vec<&str> = h.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                "forze_event_id",
                "forze_occurred_at",
                "forze_correlation_id",
                "forze_hlc",
                "traceparent"
            ]
        );
        assert_eq!(h[0].1, "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
        assert_eq!(h[1].1, "2026-12-01T10:00:00+00:00");
        assert_eq!(h[3].1, "001764583200000.00003");
    }

    #[test]
    fn isoformat_shows_micros_only_when_non_zero() {
        let t = Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap();
        assert_eq!(python_isoformat(t), "2026-12-01T10:00:00+00:00");
        let t = t + chrono::Duration::microseconds(123_000);
        assert_eq!(python_isoformat(t), "2026-12-01T10:00:00.123000+00:00");
        let t = t + chrono::Duration::nanoseconds(999);
        assert_eq!(
            python_isoformat(t),
            "2026-12-01T10:00:00.123000+00:00",
            "nanoseconds truncate"
        );
        let t = Utc.with_ymd_and_hms(987, 1, 2, 3, 4, 5).unwrap();
        let t = t + chrono::Duration::microseconds(7);
        assert_eq!(python_isoformat(t), "0987-01-02T03:04:05.000007+00:00");
        let t = Utc.with_ymd_and_hms(12345, 6, 7, 8, 9, 10).unwrap();
        assert_eq!(python_isoformat(t), "12345-06-07T08:09:10+00:00");
        let t = Utc.with_ymd_and_hms(-4713, 11, 24, 0, 0, 0).unwrap();
        assert_eq!(python_isoformat(t), "-4713-11-24T00:00:00+00:00");
    }

    #[test]
    fn key_falls_back_to_event_id_when_null_or_empty() {
        let mut row = worked_example();
        assert_eq!(row.key(), "order-42");
        row.ordering_key = Some(String::new());
        assert_eq!(row.key(), "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
        row.ordering_key = None;
        assert_eq!(row.key(), "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
    }

    #[test]
    fn compact_json_keeps_numbers_and_strings_exactly() {
        assert_eq!(
            compact_json(
                r#"{"amount": 12345678901234567890.123456789, "s": "a b\" c", "x": [1, 2]}"#
            ),
            r#"{"amount":12345678901234567890.123456789,"s":"a b\" c","x":[1,2]}"#
        );
        assert_eq!(
            compact_json(r#"{"__fz_enc__": "AAA="}"#),
            r#"{"__fz_enc__":"AAA="}"#
        );
        assert_eq!(
            compact_json(r#"{"k": "\\", "n": "é/\u0001"}"#),
            r#"{"k":"\\","n":"é/\u0001"}"#
        );
    }

    #[test]
    fn json_line_has_the_designed_shape() {
        let m = Message::from_row(&worked_example()).unwrap();
        assert_eq!(
            m.to_json(),
            concat!(
                r#"{"id":"00000000-0000-0000-0000-000000000000","event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","#,
                r#""route":"orders","type":"order.placed","key":"order-42","tenant_id":null,"#,
                r#""payload":{"total":"19.90","order_id":42},"#,
                r#""headers":{"forze_event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","forze_occurred_at":"2026-12-01T10:00:00+00:00","#,
                r#""forze_correlation_id":"0190c4e2-8a6c-7e4a-9b1e-000000000001","forze_hlc":"001764583200000.00003","#,
                r#""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}"#
            )
        );
    }

    #[test]
    fn a_payload_that_is_not_json_is_poison() {
        let mut row = worked_example();
        row.payload = "{not json".into();
        assert!(Message::from_row(&row).is_err());
    }
}

/// Where delivered rows go: kept as `published` (retain) or deleted in the pass (consume).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    Retain,
    Consume,
}

impl Storage {
    /// The configuration's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Storage::Retain => "retain",
            Storage::Consume => "consume",
        }
    }
}

impl std::fmt::Display for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a looping relay learns of new rows besides polling at `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Wake {
    /// Polling only.
    #[default]
    Off,
    /// PostgreSQL: `LISTEN` for the outbox's insert trigger; MongoDB: a change stream.
    Notify,
}

/// Per-key ordering of the relay: best-effort (the default) or strict (a key's rows go one
/// after another, held back behind an earlier row in flight, waiting for a retry or parked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyOrder {
    BestEffort,
    Strict,
}

impl KeyOrder {
    /// The configuration's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyOrder::BestEffort => "best-effort",
            KeyOrder::Strict => "strict",
        }
    }
}
