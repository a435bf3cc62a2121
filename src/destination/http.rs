//! HTTP webhooks: one POST per event whose body is the JSON message (the same object as a
//! stdout line), with the envelope headers as HTTP headers, `Idempotency-Key` = event id, and
//! with `secret_env` a signature ([`webhook_sign`](super::webhook_sign): Standard Webhooks or
//! outboxctl's own), signed again on every attempt. With `batch: N`, up to N events in flight
//! go in one POST as a JSON array; the response decides for the whole batch. 2xx is delivered;
//! a connection that cannot be made and 502/503/504 mean the receiver is away (no attempt
//! counts; the relay probes it with a TCP connect); 408, 429, 500 and timeouts are retried;
//! any other 4xx parks the row at once with the status and a body excerpt.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use super::webhook_sign::{Scheme, Signer, SigningError, hex};
use super::{DestinationError, PublishError, Publisher};
use crate::model::Message;
use crate::telemetry;

pub use super::webhook_sign::{SIGNATURE_HEADER, signature};
/// On a batched request: how many events the array holds.
pub const BATCH_HEADER: &str = "X-Outboxctl-Batch-Size";

pub struct Http {
    post: Arc<Post>,
    /// With `batch: N`: messages go to a task that posts up to N of them per request.
    batcher: Option<mpsc::UnboundedSender<Waiting>>,
}

/// A batched message, where its batch's outcome goes, and the span it was published under.
type Waiting = (
    Arc<Message>,
    oneshot::Sender<Result<(), PublishError>>,
    telemetry::Parent,
);

/// What a POST needs: the client, the URL and the signing keys.
struct Post {
    client: reqwest::Client,
    url: String,
    signer: Option<Signer>,
    timeout: Duration,
    /// The URL as traces name it: no credentials, query or fragment.
    traced_as: String,
}

/// A webhook URL without what may be secret in it (credentials, query, fragment).
fn traced_as(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => crate::dburl::mask(url),
    }
}

/// The `Idempotency-Key` of a batch: the hex SHA-256 of its event ids' 16-byte forms,
/// concatenated in order (the same batch posted again carries the same key; receivers dedup
/// single events by each object's `event_id`).
pub fn batch_key(messages: &[Arc<Message>]) -> String {
    let mut digest = Sha256::new();
    for m in messages {
        digest.update(m.event_id.as_bytes());
    }
    hex(&digest.finalize())
}

impl Http {
    /// `batch`: post up to this many events per request as a JSON array (must run inside the
    /// tokio runtime: it starts the batching task).
    pub fn new(
        url: &str,
        timeout: Duration,
        signer: Option<Signer>,
        batch: Option<usize>,
    ) -> Result<Self, DestinationError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            // a redirected POST comes back a GET without its body: not a delivery
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("outboxctl/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                DestinationError::local(format!("building the HTTP client: {e}")).because(e)
            })?;
        let post = Arc::new(Post {
            client,
            url: url.to_owned(),
            signer,
            timeout,
            traced_as: traced_as(url),
        });
        let batcher = batch.map(|max| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(batch_loop(post.clone(), rx, max.max(1)));
            tx
        });
        Ok(Self { post, batcher })
    }
}

/// Gathers what is in flight (up to `max`) into one request, each batch posted on its own
/// task so several can be in flight; every message of a batch shares its outcome.
async fn batch_loop(post: Arc<Post>, mut rx: mpsc::UnboundedReceiver<Waiting>, max: usize) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        // The relay starts a pass's publishes together: let them all arrive.
        tokio::task::yield_now().await;
        while batch.len() < max {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let post = post.clone();
        tokio::spawn(async move {
            // the batch is traced under the span its first message was published in
            let parent = batch[0].2.clone();
            let began = parent.is_some().then(std::time::SystemTime::now);
            let (messages, replies): (Vec<_>, Vec<_>) =
                batch.into_iter().map(|(m, r, _)| (m, r)).unzip();
            let result = post.batch(&messages).await;
            if let Some(began) = began {
                let error = result.as_ref().err();
                telemetry::record_send(
                    &parent,
                    &post.messaging(),
                    began,
                    messages.iter().map(|m| &**m),
                    error.map(|e| (e.kind.error_type(), e.message.as_str())),
                );
            }
            for reply in replies {
                let _ = reply.send(result.clone());
            }
        });
    }
}

fn excerpt(body: &str) -> String {
    let one_line = body.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::clip(&one_line, 200)
}

impl Post {
    fn messaging(&self) -> telemetry::SendTo<'_> {
        telemetry::SendTo {
            system: "http",
            name: self.traced_as.as_str().into(),
        }
    }

    /// One event: the message object as the body, its headers as HTTP headers.
    async fn one(&self, message: &Message) -> Result<(), PublishError> {
        let id = message.event_id.to_string();
        let mut req = self.client.post(&self.url).header("Idempotency-Key", &id);
        for (k, v) in &message.headers {
            req = req.header(*k, v.as_str());
        }
        req = req
            .header("forze_type", message.event_type.as_str())
            .header("forze_key", message.key.as_str());
        self.send(req, &id, message.to_json().into_bytes()).await
    }

    /// Several events: a JSON array of message objects (each with its own headers).
    async fn batch(&self, messages: &[Arc<Message>]) -> Result<(), PublishError> {
        // each message written straight into the body, no string of its own
        let mut body = Vec::with_capacity(512 * messages.len());
        body.push(b'[');
        for (i, m) in messages.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            m.write_json(&mut body);
        }
        body.push(b']');
        let id = batch_key(messages);
        let req = self
            .client
            .post(&self.url)
            .header("Idempotency-Key", &id)
            .header(BATCH_HEADER, messages.len());
        self.send(req, &id, body).await
    }

    /// Sends one attempt: `id` is the message id the signature names (the `Idempotency-Key`),
    /// the timestamp this attempt's.
    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        id: &str,
        body: Vec<u8>,
    ) -> Result<(), PublishError> {
        let mut req = req.header("Content-Type", "application/json");
        if let Some(signer) = &self.signer {
            for (name, value) in signer.headers(id, unix_now(), &body) {
                req = req.header(name, value);
            }
        }
        let resp = req.body(body).send().await.map_err(|e| {
            // reqwest names the URL, credentials and all: the row's last_error must not
            let e = e.without_url();
            let why = crate::text::one_line(&e);
            if e.is_timeout() {
                PublishError::timed_out(format!("POST timed out: {why}"))
            } else if e.is_connect() {
                PublishError::away(format!("POST failed: {why}"))
            } else if e.is_builder() {
                // the same message could never be sent: a header value with a line break
                // (an ordering key, an event type), say
                PublishError::permanent(format!("the POST cannot be made: {why}"))
            } else {
                PublishError::transient(format!("POST failed: {why}"))
            }
        })?;
        let status = resp.status();
        if status.is_success() {
            return Ok(());
        }
        if status.is_redirection() {
            // the URL to change, while the rows wait: retried, parked at max_attempts
            let to = resp.headers().get("location");
            let to = to.and_then(|l| l.to_str().ok()).map(traced_as);
            return Err(PublishError::transient(format!(
                "HTTP {} to {}: redirects are not followed (a POST would arrive as a GET without its body); point the route at the new URL",
                status.as_u16(),
                to.as_deref().unwrap_or("an unnamed location")
            )));
        }
        let text = resp.text().await.unwrap_or_default();
        let error = format!("HTTP {}: {}", status.as_u16(), excerpt(&text));
        if matches!(status.as_u16(), 502..=504) {
            Err(PublishError::away(error))
        } else if status.as_u16() == 408 || status.as_u16() == 429 || status.is_server_error() {
            Err(PublishError::transient(error))
        } else {
            Err(PublishError::permanent(error))
        }
    }
}

/// Now in Unix seconds (a clock before 1970 signs 0, which any receiver refuses as too old).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Publisher for Http {
    fn default_timeout(&self) -> Duration {
        self.post.timeout
    }

    fn messaging(&self) -> telemetry::SendTo<'_> {
        self.post.messaging()
    }

    /// Batched, a POST is the send: one span per POST, under the span its first message was
    /// published in.
    fn traces_sends(&self) -> bool {
        self.batcher.is_some()
    }

    /// A `HEAD` request to the webhook URL (publishing nothing): any answer but 502/503/504
    /// means the receiver is back. A TCP connect alone would not tell a stalled receiver.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let post = self.post.clone();
        Box::pin(async move {
            let resp = post.client.head(&post.url).send().await.map_err(|e| {
                let e = e.without_url();
                let url = traced_as(&post.url);
                DestinationError::unreachable(format!("HEAD {url}: {}", crate::text::one_line(&e)))
                    .because(e)
            })?;
            match resp.status().as_u16() {
                status @ 502..=504 => Err(DestinationError::unreachable(format!(
                    "HEAD answered HTTP {status}"
                ))),
                _ => Ok(()),
            }
        })
    }

    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        match &self.batcher {
            None => {
                let post = self.post.clone();
                Box::pin(async move { post.one(&message).await })
            }
            Some(tx) => {
                let (reply, outcome) = oneshot::channel();
                let sent = tx.send((message, reply, telemetry::Parent::current()));
                Box::pin(async move {
                    sent.map_err(|_| PublishError::transient("the webhook batcher stopped"))?;
                    outcome
                        .await
                        .map_err(|_| PublishError::transient("the webhook batcher stopped"))?
                })
            }
        }
    }
}

/// The route options an `http(s)://` destination takes.
pub const OPTIONS: &[&str] = &["timeout", "secret_env", "signature", "batch"];

/// A route's webhook options, checked (no I/O; the signing secrets are read from the
/// environment and decoded now, so a missing or malformed one stops the relay at start).
/// Errors name their key: `relay.routes.R.signature` for the signing, `relay.routes.R.to`
/// for the rest.
pub fn plan(
    route: &str,
    url: String,
    dest: &crate::config::Route,
) -> Result<super::RouteSpec, DestinationError> {
    let to = |e: DestinationError| e.for_key(format!("relay.routes.{route}.to"));
    let signing = |e: SigningError| {
        DestinationError::from(e).for_key(format!("relay.routes.{route}.signature"))
    };
    if dest.batch == Some(0) {
        return Err(to(DestinationError::invalid("batch must be at least 1")));
    }
    let scheme = dest
        .signature
        .as_deref()
        .map(Scheme::parse)
        .transpose()
        .map_err(signing)?;
    let signer = match &dest.secret_env {
        None if scheme.is_some() => return Err(signing(SigningError::NoSecret)),
        None => None,
        Some(var) => {
            let secrets = std::env::var(var)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| {
                    to(DestinationError::invalid(format!(
                        "secret_env names {var}, which is not set"
                    )))
                })?;
            Some(Signer::new(var, &secrets, scheme).map_err(signing)?)
        }
    };
    Ok(super::RouteSpec::Http {
        url: url.into(),
        timeout: dest.timeout.map_or(Duration::from_secs(10), |d| d.0),
        signer,
        batch: dest.batch.map(|b| b as usize),
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Route;
    use crate::destination::{DestinationUrl, plan};

    #[test]
    fn a_signing_option_that_cannot_work_is_refused_naming_its_key() {
        let route = |signature: &str| Route {
            signature: Some(signature.into()),
            ..Route::new(DestinationUrl::parse("http://127.0.0.1:1/hook").unwrap())
        };
        let e = plan("hooks", &route("sha1")).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"relay.routes.hooks.signature: unknown value "sha1": use standard, outboxctl or both"#
        );
        let e = plan("hooks", &route("standard")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "relay.routes.hooks.signature: needs secret_env, the variable that holds the signing secret"
        );
        let e = plan(
            "hooks",
            &Route {
                signature: Some("standard".into()),
                ..Route::new(DestinationUrl::Stdout)
            },
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("relay.routes.hooks.signature does not apply to a stdout destination"),
            "{e}"
        );
    }

    #[test]
    fn signature_is_hmac_sha256_hex() {
        // RFC 4231 test case 2
        assert_eq!(
            super::signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
