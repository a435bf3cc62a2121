//! HTTP webhooks: one POST per event whose body is the JSON message (the same object as a
//! stdout line), with the envelope headers as HTTP headers, `Idempotency-Key` = event id, and
//! an optional HMAC-SHA256 signature of the body. 2xx is delivered; 408, 429, 5xx and timeouts
//! are retried; any other 4xx parks the row at once with the status and a body excerpt.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{PublishError, Publisher};
use crate::model::Message;

pub const SIGNATURE_HEADER: &str = "X-Outboxctl-Signature";

pub struct Http {
    client: reqwest::Client,
    url: String,
    secret: Option<Arc<Vec<u8>>>,
}

/// `sha256=<hex>` of the body under the secret.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

impl Http {
    pub fn new(url: &str, timeout: Duration, secret: Option<Vec<u8>>) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .user_agent(concat!("outboxctl/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("building the HTTP client: {e}"))?;
        Ok(Self {
            client,
            url: url.to_owned(),
            secret: secret.map(Arc::new),
        })
    }
}

fn excerpt(body: &str) -> String {
    let one_line = body.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

impl Publisher for Http {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (client, url, secret) = (self.client.clone(), self.url.clone(), self.secret.clone());
        Box::pin(async move {
            let body = message.to_json();
            let mut req = client
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", message.event_id.to_string());
            for (k, v) in &message.headers {
                req = req.header(*k, v.as_str());
            }
            req = req
                .header("forze_type", message.event_type.as_str())
                .header("forze_key", message.key.as_str());
            if let Some(secret) = &secret {
                req = req.header(SIGNATURE_HEADER, signature(secret, body.as_bytes()));
            }
            let resp = req.body(body).send().await.map_err(|e| {
                let what = if e.is_timeout() {
                    "timed out"
                } else {
                    "failed"
                };
                PublishError::transient(format!("POST {what}: {e}"))
            })?;
            let status = resp.status();
            if status.is_success() {
                return Ok(());
            }
            let text = resp.text().await.unwrap_or_default();
            let error = format!("HTTP {}: {}", status.as_u16(), excerpt(&text));
            if status.as_u16() == 408 || status.as_u16() == 429 || status.is_server_error() {
                Err(PublishError::transient(error))
            } else {
                Err(PublishError::permanent(error))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn signature_is_hmac_sha256_hex() {
        // RFC 4231 test case 2
        assert_eq!(
            super::signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
