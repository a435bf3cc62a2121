//! Where a replay stands, as text an operator can copy: the summary prints it and `--after`
//! resumes after it. Pure: no I/O.
//!
//! `r1.TENANT.ROUTE.HLC.CREATED.ID` for outbox rows (claim order),
//! `t2.SOURCE.ROUTE.PUBLISHED.EVENT` for a `postgres-table` destination, `f2.SOURCE.LINE` for a
//! JSON-lines file; the route is written in hex so any route name survives, `-` stands for
//! none. `SOURCE` names the table or file ([`source_id`]), so a cursor of one is refused for
//! another; `t1`/`f1` cursors, printed before it, carry none and are taken for any.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A position in one source's order: the last event handed to the destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    /// An outbox row, in claim order: `(hlc, created_at, id)` with HLC ordering, else
    /// `(created_at, id)`; per tenant table and route.
    Row {
        tenant: Option<Uuid>,
        route: String,
        hlc: Option<i64>,
        created_at: DateTime<Utc>,
        id: Uuid,
    },
    /// A row of a `postgres-table` destination, in `(published_at, event_id)` order per route.
    Table {
        /// The table's [`source_id`] (none in a `t1` cursor).
        source: Option<String>,
        route: String,
        published_at: DateTime<Utc>,
        event_id: Uuid,
    },
    /// A line of a JSON-lines file (1-based).
    Line {
        /// The file's [`source_id`] (none in an `f1` cursor).
        source: Option<String>,
        line: u64,
    },
}

/// A short name for a source (a table's qualified name, a file's path as the filesystem
/// resolves it): [`crate::target::short_hash`].
pub fn source_id(name: &str) -> String {
    crate::target::short_hash(name)
}

/// A `postgres-table` source's [`source_id`]: its qualified name, quoted as in SQL.
pub fn table_id(table: &crate::target::QualifiedName) -> String {
    source_id(&table.to_string())
}

impl Cursor {
    pub fn encode(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        match self {
            Cursor::Row {
                tenant,
                route,
                hlc,
                created_at,
                id,
            } => format!(
                "r1.{}.{}.{}.{}.{id}",
                opt(tenant.map(|t| t.to_string())),
                hex(route),
                opt(hlc.map(|h| h.to_string())),
                created_at.timestamp_micros()
            ),
            Cursor::Table {
                source,
                route,
                published_at,
                event_id,
            } => match source {
                Some(s) => format!(
                    "t2.{s}.{}.{}.{event_id}",
                    hex(route),
                    published_at.timestamp_micros()
                ),
                None => format!(
                    "t1.{}.{}.{event_id}",
                    hex(route),
                    published_at.timestamp_micros()
                ),
            },
            Cursor::Line {
                source: Some(s),
                line,
            } => format!("f2.{s}.{line}"),
            Cursor::Line { source: None, line } => format!("f1.{line}"),
        }
    }

    pub fn parse(text: &str) -> Result<Self, super::ReplayError> {
        let bad = || {
            super::ReplayError::Value(format!(
                "--after {text:?} is not a cursor printed by outboxctl replay (copy it from a replay's summary)"
            ))
        };
        let parts: Vec<&str> = text.trim().split('.').collect();
        let micros = |s: &str| {
            s.parse::<i64>()
                .ok()
                .and_then(DateTime::from_timestamp_micros)
        };
        let uuid = |s: &str| Uuid::parse_str(s).ok();
        let table = |source: Option<&&str>, route: &str, published: &str, event_id: &str| {
            Some(Cursor::Table {
                source: source.map(|s| (*s).to_owned()),
                route: unhex(route)?,
                published_at: micros(published)?,
                event_id: uuid(event_id)?,
            })
        };
        let parsed = match parts.as_slice() {
            ["r1", tenant, route, hlc, created, id] => (|| {
                Some(Cursor::Row {
                    tenant: match *tenant {
                        "-" => None,
                        t => Some(uuid(t)?),
                    },
                    route: unhex(route)?,
                    hlc: match *hlc {
                        "-" => None,
                        h => Some(h.parse().ok()?),
                    },
                    created_at: micros(created)?,
                    id: uuid(id)?,
                })
            })(),
            ["t1", route, published, event_id] => table(None, route, published, event_id),
            ["t2", source, route, published, event_id] if is_source_id(source) => {
                table(Some(source), route, published, event_id)
            }
            ["f1", line] => line
                .parse()
                .ok()
                .map(|line| Cursor::Line { source: None, line }),
            ["f2", source, line] if is_source_id(source) => {
                line.parse().ok().map(|line| Cursor::Line {
                    source: Some((*source).to_owned()),
                    line,
                })
            }
            _ => None,
        };
        parsed.ok_or_else(bad)
    }

    /// What kind of source the cursor belongs to, as `--from` names it.
    pub fn source_kind(&self) -> &'static str {
        match self {
            Cursor::Row { .. } => "the outbox's published rows",
            Cursor::Table { .. } => "a postgres-table destination",
            Cursor::Line { .. } => "a file: archive",
        }
    }

    /// The [`source_id`] of the table or file the cursor was printed for, when it says.
    pub fn source(&self) -> Option<&str> {
        match self {
            Cursor::Table { source, .. } | Cursor::Line { source, .. } => source.as_deref(),
            Cursor::Row { .. } => None,
        }
    }
}

fn is_source_id(text: &str) -> bool {
    text.len() == 8 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<String> {
    if text.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_survive_the_round_trip() {
        let at = DateTime::from_timestamp_micros(1_764_583_200_123_456).unwrap();
        let id: Uuid = "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e".parse().unwrap();
        for c in [
            Cursor::Row {
                tenant: None,
                route: "orders.v1/eu".into(),
                hlc: Some(115_643_724_595_200_003),
                created_at: at,
                id,
            },
            Cursor::Row {
                tenant: Some(id),
                route: "é".into(),
                hlc: None,
                created_at: at,
                id,
            },
            Cursor::Table {
                source: Some(source_id("app.outbox_sink")),
                route: "orders".into(),
                published_at: at,
                event_id: id,
            },
            Cursor::Table {
                source: None,
                route: "orders".into(),
                published_at: at,
                event_id: id,
            },
            Cursor::Line {
                source: Some(source_id("/var/spool/outbox.jsonl")),
                line: 42,
            },
            Cursor::Line {
                source: None,
                line: 42,
            },
        ] {
            let text = c.encode();
            assert!(!text.contains(' '), "{text}");
            assert_eq!(Cursor::parse(&text).unwrap(), c, "{text}");
        }
        let line = |source: Option<String>| Cursor::Line { source, line: 7 };
        assert_eq!(
            line(None).encode(),
            "f1.7",
            "the format is part of the interface"
        );
        let id = source_id("/var/spool/outbox.jsonl");
        assert_eq!(line(Some(id.clone())).encode(), format!("f2.{id}.7"));
    }

    #[test]
    fn a_wrong_cursor_is_refused_by_name() {
        for text in [
            "",
            "r1.x",
            "f1.-3",
            "t1.zz.1.x",
            "r2.-.6f.-.1.x",
            "f2.xyz.3",
            "f2.3",
        ] {
            let e = Cursor::parse(text).unwrap_err();
            assert!(e.to_string().starts_with("--after "), "{e}");
        }
    }
}
