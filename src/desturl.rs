//! A destination URL (a route's `to:`, `--to`, `--from`): which kind of destination it names,
//! parsed once, before any I/O. Pure: it contacts nothing and reads no environment (`${NAME}`
//! is expanded by the configuration first). `Display` and `Debug` never show a password.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use crate::dburl::mask;
use crate::target::{NameError, QualifiedName};

/// The kinds of destination URL outboxctl knows.
#[derive(Clone, PartialEq, Eq)]
pub enum DestinationUrl {
    Stdout,
    File(PathBuf),
    PostgresTable(QualifiedName),
    Redis(String),
    Amqp(String),
    Nats(String),
    Http(String),
    Kafka(String),
}

/// Why a text is not a destination URL.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DestinationUrlError {
    #[error("file: needs a path, e.g. file:/var/spool/outbox.jsonl")]
    FileWithoutPath,
    /// `postgres-table:` with a name that cannot be a table.
    #[error(transparent)]
    Table(#[from] NameError),
    /// A scheme outboxctl does not publish to (the text, its password masked).
    #[error(
        "destination {0:?} is not supported: use stdout, file:PATH, postgres-table:SCHEMA.TABLE, redis://, amqp://, nats://, kafka://, http(s)://"
    )]
    Unsupported(String),
    /// An http(s) URL no request can be sent to, and why. Not the URL itself: it may come
    /// from `${VAR}` whole, a webhook's secret token in its path (the key names where it is).
    #[error("not an http(s) URL a POST can go to: {reason} (e.g. https://hooks.example/orders)")]
    BadHttp { reason: String },
}

impl DestinationUrl {
    pub fn parse(text: &str) -> Result<Self, DestinationUrlError> {
        let text = text.trim();
        if text == "stdout" || text == "-" {
            return Ok(Self::Stdout);
        }
        if let Some(path) = text.strip_prefix("file:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(DestinationUrlError::FileWithoutPath);
            }
            return Ok(Self::File(path.into()));
        }
        if let Some(table) = text.strip_prefix("postgres-table:") {
            return Ok(Self::PostgresTable(QualifiedName::parse(
                "destination table",
                table,
            )?));
        }
        let scheme = text
            .split_once("://")
            .map(|(s, _)| s.to_ascii_lowercase())
            .unwrap_or_default();
        match scheme.as_str() {
            "redis" | "rediss" => Ok(Self::Redis(text.to_owned())),
            "amqp" | "amqps" => Ok(Self::Amqp(text.to_owned())),
            "nats" | "tls" => Ok(Self::Nats(text.to_owned())),
            "http" | "https" => {
                // checked now, not at the first POST (each row's publish failed, and parked it)
                let bad = |reason: String| DestinationUrlError::BadHttp { reason };
                let parsed = url::Url::parse(text).map_err(|e| bad(e.to_string()))?;
                if parsed.host_str().is_none_or(str::is_empty) {
                    return Err(bad("no host".into()));
                }
                Ok(Self::Http(text.to_owned()))
            }
            "kafka" | "kafkas" => Ok(Self::Kafka(text.to_owned())),
            _ => Err(DestinationUrlError::Unsupported(mask(text))),
        }
    }
}

/// The destination as logs and reports name it, password masked.
impl fmt::Display for DestinationUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdout => f.write_str("stdout"),
            Self::File(path) => write!(f, "file:{}", path.display()),
            Self::PostgresTable(table) => write!(f, "postgres-table:{}", table.plain()),
            Self::Redis(url)
            | Self::Amqp(url)
            | Self::Nats(url)
            | Self::Http(url)
            | Self::Kafka(url) => f.write_str(&mask(url)),
        }
    }
}

impl fmt::Debug for DestinationUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DestinationUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A webhook URL that cannot take a POST is refused when the configuration loads (every
    /// row sent to it was parked: "the POST cannot be made: builder error").
    #[test]
    fn an_http_url_that_cannot_take_a_post_is_refused() {
        for (text, why) in [
            ("https://", "empty host"),
            ("http://:8080/x", "empty host"),
            ("http://h:99999/x", "invalid port number"),
            ("http://exa mple.com/x", "invalid international domain name"),
        ] {
            let e = DestinationUrl::parse(text).unwrap_err().to_string();
            assert!(
                e.contains("not an http(s) URL a POST can go to") && e.contains(why),
                "{text}: {e}"
            );
        }
        // neither a password nor a token in the path (a webhook's secret) is shown
        let e = (DestinationUrl::parse("https://u:s3cret@bad host/hooks/T0KEN"))
            .unwrap_err()
            .to_string();
        assert!(!e.contains("s3cret") && !e.contains("T0KEN"), "{e}");
        assert!(DestinationUrl::parse("https://hooks.example:8443/x?a=1").is_ok());
    }

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
        assert!(matches!(
            DestinationUrl::parse("nats://127.0.0.1:4222").unwrap(),
            DestinationUrl::Nats(_)
        ));
        assert!(matches!(
            DestinationUrl::parse("amqp://guest:guest@h:5672/%2f").unwrap(),
            DestinationUrl::Amqp(_)
        ));
        assert!(matches!(
            DestinationUrl::parse("redis://h:6379/0").unwrap(),
            DestinationUrl::Redis(_)
        ));
        assert!(matches!(
            DestinationUrl::parse("https://hooks.example/x").unwrap(),
            DestinationUrl::Http(_)
        ));
        let err = DestinationUrl::parse("gopher://u:pw@host")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("not supported") && !err.contains("pw"),
            "{err}"
        );
        assert!(DestinationUrl::parse("postgres-table:a;b").is_err());
    }

    #[test]
    fn never_shows_a_password() {
        let url = DestinationUrl::parse("amqp://relay:s3cret@mq:5672/%2f").unwrap();
        assert_eq!(url.to_string(), "amqp://relay:****@mq:5672/%2f");
        assert!(!format!("{url:?}").contains("s3cret"));
    }
}
