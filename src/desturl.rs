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
    /// A query parameter the destination's client would ignore without a word (`redis://h?db=2`
    /// wrote to database 0). `key` is quoted, or "in the query" where it may be a password's tail.
    #[error("{scheme} URL: {reason}")]
    BadBroker {
        scheme: &'static str,
        reason: String,
    },
    #[error("{scheme} URL: unknown parameter {key} ({hint})")]
    UnknownParam {
        scheme: &'static str,
        key: String,
        hint: &'static str,
    },
}

/// Refuses a broker URL that cannot be dialled: no host, or a port that is not a number from 1
/// to 65535 (`amqp://h:99999` waited as a broker down, for ever). Kafka's comma-separated
/// brokers are its client's to read: only that there is one is checked here.
fn dialable(text: &str, scheme: &'static str) -> Result<(), DestinationUrlError> {
    let bad = |reason: &str| DestinationUrlError::BadBroker {
        scheme,
        reason: reason.into(),
    };
    if scheme == "kafka://" {
        // a list of brokers, which no URL parser reads: each host:port, the port dialable
        let rest = text.split_once("://").map_or("", |(_, r)| r);
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        let brokers = authority
            .rsplit_once('@')
            .map_or(authority, |(_, hosts)| hosts);
        if brokers.is_empty() {
            return Err(bad("no broker (e.g. kafka://host:9092)"));
        }
        for broker in brokers.split(',') {
            match broker
                .rsplit_once(':')
                .map(|(host, port)| (host, port.parse::<u16>()))
            {
                Some(("", _)) => return Err(bad("a broker with no host")),
                Some((_, Ok(0))) => return Err(bad("port 0 cannot be dialled")),
                Some((_, Ok(_))) => {}
                Some((_, Err(_))) => {
                    return Err(bad(
                        "a broker's port is not a number from 1 to 65535 (a password's / ? # @ are written percent-encoded)",
                    ));
                }
                None => {
                    return Err(bad(
                        "a broker has no port (e.g. kafka://host1:9092,host2:9092)",
                    ));
                }
            }
        }
        return Ok(());
    }
    match url::Url::parse(text) {
        Err(url::ParseError::InvalidPort) => Err(bad(
            "its port is not a number from 1 to 65535 (a password's / ? # @ are written percent-encoded)",
        )),
        Err(url::ParseError::EmptyHost) => Err(bad("no host")),
        Ok(u) if u.port() == Some(0) => Err(bad("port 0 cannot be dialled")),
        Ok(u) if u.host_str().is_none_or(str::is_empty) => Err(bad("no host")),
        _ => Ok(()),
    }
}

/// `part` of a URL, quoted, when the URL as shown (`shown`, its password masked) holds it:
/// a part cut from a password is never named.
pub fn quoted_if_shown(shown: &str, part: &str) -> Option<String> {
    shown.contains(part).then(|| format!("{part:?}"))
}

/// The query parameters lapin reads from an `amqp://` URL.
const AMQP_PARAMS: &[&str] = &[
    "heartbeat",
    "connection_timeout",
    "frame_max",
    "channel_max",
    "auth_mechanism",
];

/// Refuses a query parameter of `text` not in `known` (the ones its client reads).
fn only_params(
    text: &str,
    scheme: &'static str,
    known: &[&str],
    hint: &'static str,
) -> Result<(), DestinationUrlError> {
    let Some((_, query)) = text.split_once('?') else {
        return Ok(());
    };
    let shown = mask(text);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let key = pair.split_once('=').map_or(pair, |(k, _)| k);
        if !known.contains(&key) {
            return Err(DestinationUrlError::UnknownParam {
                scheme,
                // a password's tail after a raw `?` looks like a parameter
                key: quoted_if_shown(&shown, key).unwrap_or_else(|| "in the query".into()),
                hint,
            });
        }
    }
    Ok(())
}

/// The URL as lapin connects to it, its vhost as forze reads it. An IPv6 literal's host is
/// set from the URL: lapin's reader (amq-protocol-uri 7.2) takes the URL's domain, which an
/// IP literal is not, and dialled `localhost` for `amqp://[2001:db8::5]:5672`.
pub fn amqp_uri(url: &str) -> Result<lapin::uri::AMQPUri, String> {
    let forze = vhost_as_forze_reads_it(url);
    let mut uri: lapin::uri::AMQPUri = forze.parse()?;
    if let Ok(parsed) = url::Url::parse(&forze) {
        if let Some(url::Host::Ipv6(ip)) = parsed.host() {
            uri.authority.host = ip.to_string();
        }
    }
    Ok(uri)
}

/// The URL with its vhost as forze's client (aiormq) reads it (forze-wire §3.1a): an empty
/// path or `/` is the default vhost `/`; otherwise the path without its leading `/`, with
/// `%2F` as `/`. lapin follows the AMQP URI rule, where `/` names the empty vhost, so the path
/// is rewritten to the form both read alike.
fn vhost_as_forze_reads_it(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("amqp", url));
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => (&before_query[..i], &before_query[i..]),
        None => (before_query, ""),
    };
    let path = match path {
        "" | "/" => "/%2f".to_owned(),
        p => p.to_owned(),
    };
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl DestinationUrl {
    /// Whether it writes to this process's stdout: `stdout`, or a file that is it
    /// (`file:/dev/stdout`), where a command's report must not go.
    pub fn is_stdout(&self) -> bool {
        match self {
            Self::Stdout => true,
            Self::File(path) => ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
                .iter()
                .any(|s| path == std::path::Path::new(s)),
            _ => false,
        }
    }

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
            "redis" | "rediss" => {
                let hint = "the only one read is protocol; the database is the path, e.g. redis://host:6379/2";
                only_params(text, "redis://", &["protocol"], hint)?;
                dialable(text, "redis://")?;
                Ok(Self::Redis(text.to_owned()))
            }
            "amqp" | "amqps" => {
                let hint = "the ones read are heartbeat, connection_timeout, frame_max, channel_max and auth_mechanism; the vhost is the path, e.g. amqp://host:5672/%2f";
                only_params(text, "amqp://", AMQP_PARAMS, hint)?;
                dialable(text, "amqp://")?;
                // a value its client cannot read (`heartbeat=30s`) failed every connect
                if let Err(reason) = amqp_uri(text) {
                    return Err(DestinationUrlError::BadBroker {
                        scheme: "amqp://",
                        reason: format!("cannot be read: {}", reason.replace(text, &mask(text))),
                    });
                }
                Ok(Self::Amqp(text.to_owned()))
            }
            "nats" | "tls" => {
                let hint = "it takes none; a user and password or a token go before the host, e.g. nats://user:password@host:4222";
                only_params(text, "nats://", &[], hint)?;
                dialable(text, "nats://")?;
                Ok(Self::Nats(text.to_owned()))
            }
            "http" | "https" => {
                // checked now, not at the first POST (each row's publish failed, and parked it)
                let bad = |reason: String| DestinationUrlError::BadHttp { reason };
                let parsed = url::Url::parse(text).map_err(|e| bad(e.to_string()))?;
                if parsed.host_str().is_none_or(str::is_empty) {
                    return Err(bad("no host".into()));
                }
                if parsed.port() == Some(0) {
                    return Err(bad("port 0 cannot be dialled".into()));
                }
                Ok(Self::Http(text.to_owned()))
            }
            "kafka" | "kafkas" => {
                dialable(text, "kafka://")?;
                Ok(Self::Kafka(text.to_owned()))
            }
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
            ("http://h:0/x", "port 0"),
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

    /// A broker URL that cannot be dialled is refused when the configuration loads (it was a
    /// destination down for ever), its password never shown.
    #[test]
    fn a_broker_url_that_cannot_be_dialled_is_refused() {
        for (text, why) in [
            (
                "amqp://guest:s3cret@127.0.0.1:99999/",
                "port is not a number",
            ),
            ("amqp://guest:s3cret@:5672/", "no host"),
            ("nats://h:0", "port 0"),
            ("redis://h:x/2", "port is not a number"),
            ("kafka://", "no broker"),
            ("kafka://127.0.0.1:99999", "port is not a number"),
            ("kafkas://app:s3cret@b1:9092,b2:0/", "port 0"),
            ("kafka://b1", "has no port"),
            ("kafka://:9092", "no host"),
        ] {
            let e = DestinationUrl::parse(text).unwrap_err().to_string();
            assert!(e.contains(why) && !e.contains("s3cret"), "{text}: {e}");
        }
        for ok in [
            "amqp://guest:guest@127.0.0.1:5672/%2f",
            "amqp://mq",
            "nats://u:p@[::1]:4222",
            "nats://[::1]",
            "redis://:pw@h/2",
            "kafka://b1:9092,b2:9092/orders",
            "kafkas://app:p%40ss@b1:9093?sasl_mechanism=PLAIN",
        ] {
            assert!(DestinationUrl::parse(ok).is_ok(), "{ok}");
        }
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

    /// A parameter the client would ignore is refused when the configuration loads, named only
    /// where it is not part of a password.
    #[test]
    fn a_parameter_the_client_ignores_is_refused() {
        for (text, found) in [
            ("redis://h:6379?db=2", "unknown parameter \"db\""),
            (
                "rediss://h:6380/0?protocol=3&timeout=5",
                "unknown parameter \"timeout\"",
            ),
            (
                "nats://h:4222?tls_required=true",
                "unknown parameter \"tls_required\"",
            ),
            ("tls://h:4222/?x", "unknown parameter \"x\""),
            ("redis://:pa?ss@h:6379/0", "unknown parameter in the query"),
            (
                "amqps://u:pass@h:5671/%2f?cafile=/etc/ca.pem",
                "unknown parameter \"cafile\"",
            ),
            ("amqp://u:pass@h/%2f?heartbeat=30s", "cannot be read"),
        ] {
            let e = DestinationUrl::parse(text).unwrap_err().to_string();
            assert!(e.contains(found), "{text}: {e}");
            assert!(!e.contains("pa?ss") && !e.contains("ss@"), "{text}: {e}");
        }
        assert!(DestinationUrl::parse("redis://h:6379/2?protocol=resp3").is_ok());
        assert!(DestinationUrl::parse("nats://u:p@h:4222").is_ok());
        assert!(DestinationUrl::parse("amqp://h/%2f?heartbeat=30&connection_timeout=5000").is_ok());
    }

    #[test]
    fn never_shows_a_password() {
        let url = DestinationUrl::parse("amqp://relay:s3cret@mq:5672/%2f").unwrap();
        assert_eq!(url.to_string(), "amqp://relay:****@mq:5672/%2f");
        assert!(!format!("{url:?}").contains("s3cret"));
    }

    /// The host dialled is the URL's, IP literals too (lapin alone took `[2001:db8::5]` for
    /// `localhost`).
    #[test]
    fn the_host_dialled_is_the_urls() {
        for (url, host, port, vhost) in [
            (
                "amqp://u:p@[2001:db8::5]:5673/prod",
                "2001:db8::5",
                5673,
                "prod",
            ),
            ("amqps://[::1]", "::1", 5671, "/"),
            ("amqp://10.1.2.3:5672/", "10.1.2.3", 5672, "/"),
            ("amqp://mq.internal", "mq.internal", 5672, "/"),
        ] {
            let uri = amqp_uri(url).unwrap();
            let a = &uri.authority;
            assert_eq!(
                (a.host.as_str(), a.port, uri.vhost.as_str()),
                (host, port, vhost),
                "{url}"
            );
        }
    }

    #[test]
    fn vhosts_read_as_aiormq_reads_them() {
        let read = vhost_as_forze_reads_it;
        // an empty path and a lone slash are the default vhost "/"
        assert_eq!(
            read("amqp://guest:guest@h:5672/"),
            "amqp://guest:guest@h:5672/%2f"
        );
        assert_eq!(
            read("amqp://guest:guest@h:5672"),
            "amqp://guest:guest@h:5672/%2f"
        );
        assert_eq!(read("amqp://h"), "amqp://h/%2f");
        // %2F is "/", a name is that vhost; the query stays
        assert_eq!(read("amqp://h:5672/%2F"), "amqp://h:5672/%2F");
        assert_eq!(read("amqp://h/prod"), "amqp://h/prod");
        assert_eq!(read("amqps://h/?heartbeat=5"), "amqps://h/%2f?heartbeat=5");
        assert_eq!(
            read("amqp://h/prod?heartbeat=5"),
            "amqp://h/prod?heartbeat=5"
        );
    }
}
