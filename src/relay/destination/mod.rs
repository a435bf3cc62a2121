//! Where the relay publishes: one [`Publisher`] per route, built from a URL. A publish
//! returns once the destination has acknowledged the message; `flush` makes what was
//! published durable before the relay marks it. `postgres-table:` is not a publisher: its
//! insert runs inside the pass, through the store.

pub mod lines;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use thiserror::Error;

use crate::config::RouteFile;
use crate::model::Message;
use crate::target::QualifiedName;

#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{message}")]
pub struct PublishError {
    pub message: String,
    /// The destination refused the message for good: park it as `failed` at once.
    pub permanent: bool,
}

impl PublishError {
    pub fn transient(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            permanent: false,
        }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            permanent: true,
        }
    }
}

pub trait Publisher: Send + Sync {
    /// Publishes one message; many may be in flight at once (never two of one key).
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>>;
    /// Makes every publish so far durable (a file's fsync); brokers acknowledge per publish.
    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        Box::pin(async { Ok(()) })
    }
    /// Whether publishes must go one at a time (e.g. a line-oriented file keeps claim order).
    fn serial(&self) -> bool {
        false
    }
}

/// A route's destination.
#[derive(Clone)]
pub enum Sink {
    Publisher(Arc<dyn Publisher>),
    /// `postgres-table:SCHEMA.TABLE`: inserted inside the pass's transaction.
    Table(QualifiedName),
}

/// The kinds of destination URL outboxctl knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DestinationUrl {
    Stdout,
    File(std::path::PathBuf),
    PostgresTable(QualifiedName),
}

impl DestinationUrl {
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "stdout" || text == "-" {
            return Ok(Self::Stdout);
        }
        if let Some(path) = text.strip_prefix("file:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err("file: needs a path, e.g. file:/var/spool/outbox.jsonl".into());
            }
            return Ok(Self::File(path.into()));
        }
        if let Some(table) = text.strip_prefix("postgres-table:") {
            return QualifiedName::parse("destination table", table)
                .map(Self::PostgresTable)
                .map_err(|e| e.to_string());
        }
        let scheme = text.split_once("://").map(|(s, _)| s).unwrap_or(text);
        Err(format!(
            "destination {:?} is not supported (yet): use stdout, file:PATH or postgres-table:SCHEMA.TABLE",
            crate::dburl::mask(scheme)
        ))
    }
}

/// Builds the sink for a route.
pub fn build(
    route: &str,
    dest: &RouteFile,
    stdout_lock: &lines::StdoutShared,
) -> Result<Sink, crate::Error> {
    let url = DestinationUrl::parse(&dest.to)
        .map_err(|e| crate::Error::Runtime(format!("relay.routes.{route}.to: {e}")))?;
    Ok(match url {
        DestinationUrl::Stdout => {
            Sink::Publisher(Arc::new(lines::Lines::stdout(stdout_lock.clone())))
        }
        DestinationUrl::File(path) => {
            Sink::Publisher(Arc::new(lines::Lines::file(&path).map_err(|e| {
                crate::Error::Runtime(format!(
                    "relay.routes.{route}.to: cannot open {}: {e}",
                    path.display()
                ))
            })?))
        }
        DestinationUrl::PostgresTable(table) => Sink::Table(table),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_destination_urls() {
        assert_eq!(
            DestinationUrl::parse("stdout").unwrap(),
            DestinationUrl::Stdout
        );
        assert_eq!(
            DestinationUrl::parse("file:/tmp/x.jsonl").unwrap(),
            DestinationUrl::File("/tmp/x.jsonl".into())
        );
        assert_eq!(
            DestinationUrl::parse("file:///tmp/x").unwrap(),
            DestinationUrl::File("/tmp/x".into())
        );
        assert!(matches!(
            DestinationUrl::parse("postgres-table:app.sink").unwrap(),
            DestinationUrl::PostgresTable(_)
        ));
        let err = DestinationUrl::parse("gopher://u:pw@host").unwrap_err();
        assert!(
            err.contains("not supported") && !err.contains("pw"),
            "{err}"
        );
        assert!(DestinationUrl::parse("postgres-table:a;b").is_err());
    }
}
