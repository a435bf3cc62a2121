//! What a replay is asked for, checked against the configuration before anything is read or
//! contacted: where to read (`--from`, parsed as a destination URL of the kind that keeps
//! events), the selection, and where to resume (`--after`); also the forms its values take (a
//! time or a duration ago, an HLC, a rate). Pure: no I/O.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{Cursor, ReplayError, Selection};
use crate::Error;
use crate::config::Config;
use crate::dburl::SecretText;
use crate::destination::DestinationUrl;
use crate::hlc::HlcTimestamp;
use crate::model::Storage;
use crate::target::QualifiedName;

/// Where delivered events are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The outbox's `published` rows (retain storage).
    Published,
    /// A `postgres-table` destination.
    Table(QualifiedName),
    /// A JSON-lines archive written by the `file:` destination.
    File(PathBuf),
}

impl Origin {
    /// `--from`: a `postgres-table:` or `file:` destination (none: the outbox's rows).
    pub fn parse(text: Option<&str>) -> Result<Self, Error> {
        let Some(text) = text else {
            return Ok(Origin::Published);
        };
        match DestinationUrl::parse(text) {
            Ok(DestinationUrl::PostgresTable(table)) => Ok(Origin::Table(table)),
            Ok(DestinationUrl::File(path)) => Ok(Origin::File(path)),
            Err(e) if text.trim_start().starts_with("postgres-table:") => {
                Err(ReplayError::From {
                    text: text.to_owned(),
                    reason: e.to_string(),
                }
                .into())
            }
            // a broker's URL may carry a password
            _ => Err(ReplayError::From {
                text: crate::dburl::mask(text),
                reason: "use postgres-table:SCHEMA.TABLE or file:PATH (without --from: the outbox's published rows)".into(),
            }
            .into()),
        }
    }

    /// The [`crate::replay::cursor::source_id`] of the table or file (none for the outbox).
    pub fn source_id(&self) -> Option<String> {
        match self {
            Origin::Published => None,
            Origin::Table(t) => Some(crate::replay::cursor::table_id(t)),
            Origin::File(path) => Some(crate::replay::file::file_id(path)),
        }
    }

    /// The source as a cursor names its kind ([`Cursor::source_kind`]).
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::Published => "the outbox's published rows",
            Origin::Table(_) => "a postgres-table destination",
            Origin::File(_) => "a file: archive",
        }
    }
}

/// A replay as asked for, unchecked.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `--from`.
    pub from: Option<SecretText>,
    /// `--to`, checked against `--from` only (a replay must not read what it writes).
    pub to: Option<SecretText>,
    /// `--after`: the cursor an earlier replay printed.
    pub after: Option<String>,
    /// What to replay; no routes: the configured ones (a file: every route it holds).
    pub selection: Selection,
}

/// A replay checked and ready to open its source (once to count, once to publish).
#[derive(Debug, Clone)]
pub struct Plan {
    pub origin: Origin,
    pub selection: Selection,
    pub after: Option<Cursor>,
    /// A `--route` of a table that `relay.routes` lack (when it has routes): a typo replays
    /// nothing and would say success. An archive's routes are its own: not judged.
    pub warnings: Vec<String>,
}

/// What a request comes to.
#[derive(Debug)]
pub enum Prepared {
    Replay(Box<Plan>),
    /// The outbox's rows were asked for under consume storage, which deletes them once
    /// delivered: nothing holds the events.
    NothingKept,
}

/// Whether `to` is the archive or table `origin` reads (paths compared as the filesystem
/// resolves them, when they exist).
fn reads_what_it_writes(origin: &Origin, to: Option<&str>) -> bool {
    let same_file = |a: &std::path::Path, b: &std::path::Path| {
        a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    match (origin, to.map(DestinationUrl::parse)) {
        (Origin::File(a), Some(Ok(DestinationUrl::File(b)))) => same_file(a, &b),
        (Origin::Table(a), Some(Ok(DestinationUrl::PostgresTable(b)))) => *a == b,
        _ => false,
    }
}

/// Checks a request against the configuration.
pub fn prepare(config: &Config, mut request: Request) -> Result<Prepared, Error> {
    // a route named twice (`--route orders,orders`) is replayed once
    let mut seen = std::collections::HashSet::new();
    (request.selection.routes).retain(|r| seen.insert(r.clone()));
    let origin = Origin::parse(request.from.as_ref().map(SecretText::expose))?;
    let after = request.after.as_deref().map(Cursor::parse).transpose()?;
    if let Some(c) = after.as_ref().filter(|c| c.source_kind() != origin.kind()) {
        return Err(ReplayError::CursorKind {
            found: c.source_kind(),
            expected: origin.kind(),
        }
        .into());
    }
    if let Some(c) = &after {
        if c.source()
            .is_some_and(|id| Some(id) != origin.source_id().as_deref())
        {
            return Err(ReplayError::Value(format!(
                "--after {} was printed for another {} than --from {}: resume each replay with its own cursor",
                c.encode(),
                match origin {
                    Origin::File(_) => "file",
                    _ => "table",
                },
                request.from.as_ref().map(SecretText::expose).unwrap_or_default()
            ))
            .into());
        }
    }
    if origin == Origin::Published && config.outbox.storage == Storage::Consume {
        return Ok(Prepared::NothingKept);
    }
    if reads_what_it_writes(&origin, request.to.as_ref().map(SecretText::expose)) {
        return Err(ReplayError::Selection(
            "--from and --to are the same archive or table: the replay would read the events it writes, without end; replay to another destination",
        )
        .into());
    }
    let mut selection = request.selection;
    let file = matches!(origin, Origin::File(_));
    if selection.routes.is_empty() && !file {
        selection.routes = config.relay.routes.keys().cloned().collect();
        if selection.routes.is_empty() {
            return Err(ReplayError::Selection(
                "no routes to replay: pass --route ROUTE (repeatable) or configure relay.routes",
            )
            .into());
        }
    }
    // an empty window is a mistake (two times swapped), not "no events"
    if let (Some(since), Some(until)) = (selection.since, selection.until) {
        if since >= until {
            let at = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
            let (s, u) = (at(since), at(until));
            let fix = match since == until {
                true => "make --until later",
                false => "swap them",
            };
            return Err(value(format!(
                "--until ({u}) is not after --since ({s}): the window selects nothing; {fix}"
            ))
            .into());
        }
    }
    if let (Some(from), Some(to)) = (selection.hlc_from, selection.hlc_to) {
        if from > to {
            // in the header's form, as they are mostly typed (packed, they read as noise)
            let stamp = |p: i64| {
                crate::hlc::HlcTimestamp::unpack(p).map_or(p.to_string(), |t| t.to_string())
            };
            let (from, to) = (stamp(from), stamp(to));
            return Err(value(format!(
                "--hlc-to ({to}) is before --hlc-from ({from}): the range selects nothing; swap them"
            ))
            .into());
        }
    }
    if file && (selection.since.is_some() || selection.until.is_some()) {
        return Err(ReplayError::Selection(
            "--since/--until select by delivery time, which a file: archive does not keep; select by --hlc-from/--hlc-to, --event-id, --key or --type",
        )
        .into());
    }
    if origin == Origin::Published
        && (selection.hlc_from.is_some() || selection.hlc_to.is_some())
        && !config.outbox.hlc_ordering
    {
        return Err(ReplayError::Selection(
            "--hlc-from/--hlc-to need outbox.hlc_ordering: true (the rows have no hlc otherwise)",
        )
        .into());
    }
    let warnings = (selection.routes.iter())
        .filter(|_| !file)
        .filter_map(|r| config.route_unconfigured(r))
        .map(|why| format!("{why}: a typo replays nothing"))
        .collect();
    Ok(Prepared::Replay(Box::new(Plan {
        origin,
        selection,
        after,
        warnings,
    })))
}

fn value(text: String) -> ReplayError {
    ReplayError::Value(text)
}

/// A time: RFC 3339, or a duration ago such as `2h`.
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, ReplayError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    let ago = humantime::parse_duration(text).map_err(|_| {
        value(format!(
            "{text:?} is neither an RFC 3339 time nor a duration such as 2h"
        ))
    })?;
    if ago.is_zero() {
        return Err(value(format!(
            "{text:?} is no time ago: give a duration such as 2h, or an RFC 3339 time"
        )));
    }
    // every duration ago from one instant, the command's: `--since 2h --until 2h` is one time
    static START: std::sync::OnceLock<DateTime<Utc>> = std::sync::OnceLock::new();
    let start = *START.get_or_init(Utc::now);
    (chrono::Duration::from_std(ago).ok())
        .filter(|_| ago <= crate::duration::LONGEST)
        .and_then(|d| start.checked_sub_signed(d))
        .ok_or_else(|| value(format!("{text:?} is too far back (100 years at most)")))
}

/// An HLC, packed: the `forze_hlc` header's form, or packed already.
pub fn parse_hlc(text: &str) -> Result<i64, ReplayError> {
    if let Ok(packed) = text.parse::<i64>() {
        return HlcTimestamp::unpack(packed)
            .map(|_| packed)
            .map_err(|e| value(e.to_string()));
    }
    HlcTimestamp::parse(text)
        .map(HlcTimestamp::pack)
        .map_err(|_| {
            value(format!(
                "{text:?} is not an HLC (e.g. 001764583200000.00003, or packed)"
            ))
        })
}

/// Events per second, positive (`/s` may follow).
pub fn parse_rate(text: &str) -> Result<f64, ReplayError> {
    let text = text.strip_suffix("/s").unwrap_or(text);
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(value(format!(
            "{text:?} is not a positive rate (events per second)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_takes_the_destinations_that_keep_events() {
        assert_eq!(Origin::parse(None).unwrap(), Origin::Published);
        assert_eq!(
            Origin::parse(Some("file:///tmp/a.jsonl")).unwrap(),
            Origin::File("/tmp/a.jsonl".into())
        );
        assert!(matches!(
            Origin::parse(Some("postgres-table:app.sink")).unwrap(),
            Origin::Table(t) if t.plain() == "app.sink"
        ));
        for bad in ["s3://b", "nats://127.0.0.1", "stdout", "file:"] {
            let e = Origin::parse(Some(bad)).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--from {bad:?}: use postgres-table:")),
                "{e}"
            );
        }
        // a broker's password stays out of the error
        let e = Origin::parse(Some("amqp://relay:s3cret@mq:5672/%2f"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--from \"amqp://relay:****@mq:5672/%2f\": use postgres-table:"),
            "{e}"
        );
        let e = Origin::parse(Some("postgres-table:a.b.c"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--from \"postgres-table:a.b.c\": "), "{e}");
    }

    #[test]
    fn rates_are_positive() {
        assert_eq!(parse_rate("50/s").unwrap(), 50.0);
        assert!(parse_rate("0").is_err() && parse_rate("inf").is_err());
    }
}
