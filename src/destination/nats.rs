//! NATS JetStream: publish to a subject with the envelope headers as NATS headers and
//! `Nats-Msg-Id` = event id (so the stream's duplicate window drops redeliveries), and wait
//! for the publish acknowledgement. forze has no NATS transport; the body is the payload JSON,
//! as on forze's RabbitMQ and Kafka transports, with `forze_type` and `forze_key` headers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream;
use async_nats::jetstream::context::PublishErrorKind;
use futures_util::future::BoxFuture;

use super::{DestinationError, PublishError, Publisher};
use crate::model::Message;

/// The client and its JetStream context, replaced by a fresh connection after an outage.
type Conn = (async_nats::Client, jetstream::Context);

pub struct Nats {
    url: String,
    subject: String,
    ack_timeout: Duration,
    /// With `create_stream`: the duplicate window of a stream created once the server answers.
    create: Option<Duration>,
    conn: Arc<Mutex<Option<Conn>>>,
}

/// What `connect` found about the stream.
#[derive(Debug)]
pub enum StreamCheck {
    Found {
        stream: String,
        duplicate_window: Duration,
    },
    Created {
        stream: String,
    },
    /// The server did not answer; the relay starts with the destination down and probes it.
    Unreachable(String),
}

/// A fresh connection. It gives up after one failed reconnect instead of buffering publishes
/// for a server that went away (they would go out behind rows the relay released); the relay
/// then finds the destination down and dials again once a probe succeeds. Credentials the
/// server refuses are [`DestinationError::Refused`], anything else is unreachable.
async fn dial(url: &str, ack_timeout: Duration) -> Result<Conn, DestinationError> {
    let (server, credentials) = credentials(url);
    let options = async_nats::ConnectOptions::new()
        .connection_timeout(Duration::from_secs(3))
        .max_reconnects(1);
    let options = match credentials {
        Credentials::None => options,
        Credentials::Token(token) => options.token(token),
        Credentials::UserPassword(user, password) => options.user_and_password(user, password),
    };
    // bounded as a whole: the client's own timeout covers the TCP connect, not a server that
    // accepts and never says a word
    let connect = tokio::time::timeout(CONNECT_WITHIN, options.connect(server.as_str()));
    let shown = crate::dburl::mask(url);
    let client = connect
        .await
        .map_err(|_| {
            let within = crate::duration::Dur(CONNECT_WITHIN);
            DestinationError::unreachable(format!(
                "connecting to NATS at {shown}: no answer within {within}"
            ))
        })?
        .map_err(|e| {
            use async_nats::ConnectErrorKind as K;
            let refused = matches!(e.kind(), K::Authentication | K::AuthorizationViolation);
            let text = format!("connecting to NATS at {shown}: {e}");
            if refused {
                DestinationError::refused(text).because(e)
            } else {
                DestinationError::unreachable(text).because(e)
            }
        })?;
    let mut js = jetstream::new(client.clone());
    js.set_timeout(ack_timeout);
    Ok((client, js))
}

/// How long dialing NATS may take, the server's first words included.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);

/// What a NATS URL's user information says: `nats://user:password@host` a user and password,
/// `nats://token@host` a token (as the NATS tools read them; the client itself ignores both).
#[derive(Debug, PartialEq, Eq)]
enum Credentials {
    None,
    Token(String),
    UserPassword(String, String),
}

/// The URL without its user information, and the credentials it carried (percent-decoded).
fn credentials(url: &str) -> (String, Credentials) {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return (url.to_owned(), Credentials::None);
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let user = decode(parsed.username());
    let credentials = match parsed.password().map(decode) {
        Some(password) => Credentials::UserPassword(user, password),
        None if user.is_empty() => return (url.to_owned(), Credentials::None),
        None => Credentials::Token(user),
    };
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    (parsed.to_string(), credentials)
}

/// The stream that captures the subject (one request: proves the server answers, too). No
/// such stream is [`DestinationError::Refused`], anything else unreachable.
async fn stream_of(js: &jetstream::Context, subject: &str) -> Result<String, DestinationError> {
    match tokio::time::timeout(Duration::from_secs(5), js.stream_by_subject(subject)).await {
        Err(_) => Err(DestinationError::unreachable(
            "NATS did not answer within 5s",
        )),
        Ok(Ok(name)) => Ok(name),
        Ok(Err(e)) if is_no_stream(&e.to_string()) => {
            Err(DestinationError::refused(no_stream(subject)).because(e))
        }
        Ok(Err(e)) => Err(DestinationError::unreachable(format!("NATS: {e}")).because(e)),
    }
}

/// Creates a stream for the subject (named after it), with the given duplicate window.
async fn create(
    js: &jetstream::Context,
    subject: &str,
    window: Duration,
) -> Result<String, DestinationError> {
    let name = stream_name(subject);
    js.create_stream(jetstream::stream::Config {
        name: name.clone(),
        subjects: vec![subject.to_owned()],
        duplicate_window: window,
        ..Default::default()
    })
    .await
    .map_err(|e| DestinationError::refused(format!("creating stream {name}: {e}")).because(e))?;
    Ok(name)
}

/// The probe: a stream captures the subject (created with `create_stream`).
async fn ready(
    js: &jetstream::Context,
    subject: &str,
    create_window: Option<Duration>,
) -> Result<(), DestinationError> {
    match (stream_of(js, subject).await, create_window) {
        (Err(DestinationError::Refused { .. }), Some(window)) => {
            create(js, subject, window).await.map(|_| ())
        }
        (result, _) => result.map(|_| ()),
    }
}

fn is_no_stream(error: &str) -> bool {
    error.contains("no stream matches") || error.contains("not found")
}

fn no_stream(subject: &str) -> String {
    format!(
        "no JetStream stream captures subject {subject}: create one (nats stream add {} --subjects {subject}), or have the relay make it (create_stream: true on a route that publishes there)",
        stream_name(subject)
    )
}

/// The name `create_stream` gives the stream of `subject` (and the fix for a missing one).
fn stream_name(subject: &str) -> String {
    subject.replace(['.', '*', '>', ' '], "_")
}

impl Nats {
    /// Connects and checks that a stream captures the subject, creating one when
    /// `create_stream` is set. A server that does not answer is no error here: the relay
    /// starts with the destination down.
    pub async fn connect(
        url: &str,
        subject: String,
        create_stream: bool,
        min_duplicate_window: Duration,
        publish_timeout: Duration,
    ) -> Result<(Self, StreamCheck), DestinationError> {
        // The client's own ack timeout ends a little before the relay's bound on the
        // publish, so a publish that finds the client disconnected says so.
        let ack_timeout = (publish_timeout * 9 / 10).max(Duration::from_millis(100));
        let nats = |conn| Self {
            url: url.to_owned(),
            subject: subject.clone(),
            ack_timeout,
            create: create_stream.then_some(min_duplicate_window),
            conn: Arc::new(Mutex::new(conn)),
        };
        let (client, js) = match dial(url, ack_timeout).await {
            Ok(conn) => conn,
            Err(DestinationError::Refused { message, source }) => {
                return Err(DestinationError::Refused {
                    message: format!(
                        "{message}: check the credentials in the URL (or the server's authorization)"
                    ),
                    source,
                });
            }
            Err(e) => return Ok((nats(None), StreamCheck::Unreachable(e.to_string()))),
        };
        let check = match stream_of(&js, &subject).await {
            Ok(name) => {
                let mut stream = js.get_stream(&name).await.map_err(|e| {
                    DestinationError::unreachable(format!("reading stream {name}: {e}")).because(e)
                })?;
                let info = stream.info().await.map_err(|e| {
                    DestinationError::unreachable(format!("reading stream {name}: {e}")).because(e)
                })?;
                StreamCheck::Found {
                    stream: name,
                    duplicate_window: info.config.duplicate_window,
                }
            }
            Err(e @ DestinationError::Refused { .. }) => {
                if !create_stream {
                    return Err(e);
                }
                StreamCheck::Created {
                    stream: create(&js, &subject, min_duplicate_window).await?,
                }
            }
            Err(e) => StreamCheck::Unreachable(e.to_string()),
        };
        Ok((nats(Some((client, js))), check))
    }
}

/// The NATS headers of a message: the envelope, then `forze_type`, `forze_key`, `Nats-Msg-Id`.
pub fn headers(message: &Message) -> async_nats::HeaderMap {
    let mut h = async_nats::HeaderMap::new();
    for (k, v) in &message.headers {
        h.insert(*k, v.as_str());
    }
    h.insert("forze_type", message.event_type.as_str());
    h.insert("forze_key", message.key.as_str());
    h.insert(
        async_nats::header::NATS_MESSAGE_ID,
        message.event_id.to_string().as_str(),
    );
    h
}

/// Why the server could never take `message`, found before it is sent: a header value with a
/// line break (the client writes it as it is, so it would end the header and start another,
/// even a `Nats-Msg-Id` that makes JetStream drop the message as a duplicate), or a message
/// over the server's `max_payload` (the client sends it anyway; the server closes the
/// connection, and every publish in flight on it would time out).
fn unsendable(
    message: &Message,
    headers: &async_nats::HeaderMap,
    max_payload: usize,
) -> Option<PublishError> {
    let mut size = "NATS/1.0\r\n\r\n".len() + message.payload.get().len();
    for (name, values) in headers.iter() {
        for value in values {
            if value.as_str().contains(['\r', '\n']) {
                return Some(PublishError::permanent(format!(
                    "NATS header {name} of event {} carries a line break, which a NATS header cannot",
                    message.event_id
                )));
            }
            size += AsRef::<str>::as_ref(name).len() + ": \r\n".len() + value.as_str().len();
        }
    }
    (max_payload > 0 && size > max_payload).then(|| {
        PublishError::permanent(format!(
            "event {} is {size} bytes with its NATS headers, over the server's max_payload of {max_payload}",
            message.event_id
        ))
    })
}

fn connected(client: &async_nats::Client) -> bool {
    client.connection_state() == async_nats::connection::State::Connected
}

impl Publisher for Nats {
    fn messaging(&self) -> crate::telemetry::SendTo<'_> {
        crate::telemetry::SendTo {
            system: "nats",
            name: self.subject.as_str().into(),
        }
    }

    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (conn, subject) = (self.conn.clone(), self.subject.clone());
        Box::pin(async move {
            let current = conn.lock().expect("not poisoned").clone();
            let Some((client, js)) = current.filter(|(c, _)| connected(c)) else {
                return Err(PublishError::away("NATS is not connected"));
            };
            let headers = headers(&message);
            let max_payload = client.server_info().max_payload;
            if let Some(refused) = unsendable(&message, &headers, max_payload) {
                return Err(refused);
            }
            let body = bytes_of(&message);
            let ack = js
                .publish_with_headers(subject.clone(), headers, body)
                .await
                .map_err(|e| PublishError::away(format!("NATS publish: {e}")))?;
            let Err(e) = ack.await else {
                return Ok(());
            };
            let text = format!("NATS acknowledgement: {e}");
            Err(match e.kind() {
                // no ack because the connection is gone: the server never judged it
                PublishErrorKind::TimedOut | PublishErrorKind::BrokenPipe
                    if !connected(&client) =>
                {
                    PublishError::away(text)
                }
                PublishErrorKind::BrokenPipe => PublishError::away(text),
                PublishErrorKind::TimedOut => PublishError::timed_out(text),
                PublishErrorKind::StreamNotFound => PublishError::away(no_stream(&subject)),
                _ => classify(text),
            })
        })
    }

    fn default_timeout(&self) -> Duration {
        Duration::from_secs(10)
    }

    /// The stream lookup on the current connection, or on a fresh one when it is gone.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let (conn, url, subject, ack_timeout, create) = (
            self.conn.clone(),
            self.url.clone(),
            self.subject.clone(),
            self.ack_timeout,
            self.create,
        );
        Box::pin(async move {
            let current = conn.lock().expect("not poisoned").clone();
            if let Some((client, js)) = current.filter(|(c, _)| connected(c)) {
                let answer = ready(&js, &subject, create).await;
                if answer.is_err() && !connected(&client) {
                    *conn.lock().expect("not poisoned") = None;
                }
                return answer;
            }
            let (client, js) = dial(&url, ack_timeout).await?;
            ready(&js, &subject, create).await?;
            *conn.lock().expect("not poisoned") = Some((client, js));
            Ok(())
        })
    }
}

/// The refusals the same message would get again: too large for the stream (JetStream error
/// 10054) or for the server (`max_payload`). Everything else is retried.
fn classify(error: String) -> PublishError {
    let lower = error.to_ascii_lowercase();
    if lower.contains("error code 10054") || lower.contains("maximum payload") {
        PublishError::permanent(error)
    } else {
        PublishError::transient(error)
    }
}

fn bytes_of(message: &Message) -> bytes::Bytes {
    message.payload.get().as_bytes().to_vec().into()
}

/// The route options a `nats://` destination takes.
pub const OPTIONS: &[&str] = &["channel", "create_stream"];

/// A route's NATS options (no I/O); its subject must be one a message can be published to.
pub fn plan(
    url: String,
    channel: String,
    dest: &crate::config::Route,
) -> Result<super::RouteSpec, DestinationError> {
    if let Some(why) = subject_fault(&channel) {
        return Err(DestinationError::invalid(format!(
            "subject {channel:?} {why}: name the subject with channel: (tokens of letters, digits, - and _, split by dots)"
        )));
    }
    Ok(super::RouteSpec::Nats {
        url: url.into(),
        channel,
        create_stream: dest.create_stream.unwrap_or(false),
    })
}

/// Why NATS would refuse a message published to `subject` (which the server reports only as
/// "invalid subject", and which would otherwise read as a server away).
fn subject_fault(subject: &str) -> Option<&'static str> {
    if subject.chars().any(char::is_whitespace) {
        return Some("contains white space");
    }
    let tokens: Vec<&str> = subject.split('.').collect();
    if tokens.iter().any(|t| t.is_empty()) {
        return Some("has an empty token (a leading, trailing or double dot)");
    }
    if tokens.iter().any(|t| *t == "*" || *t == ">") {
        return Some("has a wildcard token (* or >), which only subscriptions take");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_user_information_is_a_user_and_password_or_a_token() {
        let c = |url: &str| credentials(url);
        assert_eq!(
            c("nats://relay:p%40ss@h:4222"),
            (
                "nats://h:4222".into(),
                Credentials::UserPassword("relay".into(), "p@ss".into())
            )
        );
        assert_eq!(
            c("tls://s3cr3t@h:4222"),
            ("tls://h:4222".into(), Credentials::Token("s3cr3t".into()))
        );
        assert_eq!(
            c("nats://h:4222"),
            ("nats://h:4222".into(), Credentials::None)
        );
    }
}
