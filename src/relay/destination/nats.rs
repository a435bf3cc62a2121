//! NATS JetStream: publish to a subject with the envelope headers as NATS headers and
//! `Nats-Msg-Id` = event id (so the stream's duplicate window drops redeliveries), and wait
//! for the publish acknowledgement. forze has no NATS transport; the body is the payload JSON,
//! as on forze's RabbitMQ and Kafka transports, with `forze_type` and `forze_key` headers.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use futures_util::future::BoxFuture;

use super::{PublishError, Publisher};
use crate::model::Message;

pub struct Nats {
    js: jetstream::Context,
    subject: String,
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
    /// The server did not answer; the relay goes on and publishes fail (and retry) until it does.
    Unreachable(String),
}

impl Nats {
    /// Connects (retrying in the background when the server is down) and checks that a stream
    /// captures the subject, creating one when `create_stream` is set.
    pub async fn connect(
        url: &str,
        subject: String,
        create_stream: bool,
        min_duplicate_window: Duration,
        publish_timeout: Duration,
    ) -> Result<(Self, StreamCheck), String> {
        let client = async_nats::ConnectOptions::new()
            .retry_on_initial_connect()
            .connection_timeout(Duration::from_secs(3))
            .connect(url)
            .await
            .map_err(|e| format!("connecting to {}: {e}", crate::dburl::mask(url)))?;
        let mut js = jetstream::new(client);
        js.set_timeout(publish_timeout);
        let check = match tokio::time::timeout(
            Duration::from_secs(5),
            js.stream_by_subject(subject.clone()),
        )
        .await
        {
            Err(_) => StreamCheck::Unreachable("no answer within 5s".into()),
            Ok(Ok(name)) => {
                let mut stream = js
                    .get_stream(&name)
                    .await
                    .map_err(|e| format!("reading stream {name}: {e}"))?;
                let info = stream
                    .info()
                    .await
                    .map_err(|e| format!("reading stream {name}: {e}"))?;
                StreamCheck::Found {
                    stream: name,
                    duplicate_window: info.config.duplicate_window,
                }
            }
            Ok(Err(e))
                if e.to_string().contains("no stream matches")
                    || e.to_string().contains("not found") =>
            {
                if !create_stream {
                    return Err(format!(
                        "no JetStream stream captures subject {subject}: create one (nats stream add) or set create_stream: true on the route"
                    ));
                }
                let name = subject.replace(['.', '*', '>', ' '], "_");
                js.create_stream(jetstream::stream::Config {
                    name: name.clone(),
                    subjects: vec![subject.clone()],
                    duplicate_window: min_duplicate_window,
                    ..Default::default()
                })
                .await
                .map_err(|e| format!("creating stream {name}: {e}"))?;
                StreamCheck::Created { stream: name }
            }
            Ok(Err(e)) => StreamCheck::Unreachable(e.to_string()),
        };
        Ok((Self { js, subject }, check))
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

impl Publisher for Nats {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (js, subject) = (self.js.clone(), self.subject.clone());
        Box::pin(async move {
            let body = bytes_of(&message);
            let ack = js
                .publish_with_headers(subject, headers(&message), body)
                .await
                .map_err(|e| classify(format!("NATS publish: {e}")))?;
            ack.await
                .map_err(|e| classify(format!("NATS acknowledgement: {e}")))?;
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
