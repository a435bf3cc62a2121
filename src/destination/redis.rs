//! Redis Streams (`XADD`) and pub/sub (`PUBLISH`), exactly as forze encodes them (forze-wire
//! §1–2): stream fields `payload`, `type`, `key`, `headers` (sorted compact JSON); pub/sub one
//! sorted JSON object of strings. One multiplexed connection pipelines concurrent publishes;
//! it is reopened after a failure.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use redis::aio::MultiplexedConnection;
use tokio::sync::Mutex;

use super::{DestinationError, PublishError, Publisher, naming};
use crate::model::Message;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Stream,
    PubSub,
}

pub struct Redis {
    client: redis::Client,
    conn: Arc<Mutex<Option<MultiplexedConnection>>>,
    channel: String,
    mode: Mode,
    maxlen: Option<u64>,
    tenant_aware: bool,
}

/// The headers as forze's `JsonCodec.dumps` writes them: compact, keys sorted.
pub fn sorted_headers(message: &Message) -> String {
    let map: BTreeMap<&str, &str> = message
        .headers
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .collect();
    serde_json::to_string(&map).expect("strings serialise")
}

/// The stream entry's fields, in forze's order.
pub fn stream_fields(message: &Message) -> Vec<(&'static str, String)> {
    vec![
        ("payload", message.payload.get().to_owned()),
        ("type", message.event_type.clone()),
        ("key", message.key.clone()),
        ("headers", sorted_headers(message)),
    ]
}

/// The pub/sub body: one JSON object of strings, keys sorted.
pub fn pubsub_body(message: &Message) -> String {
    let map: BTreeMap<&str, String> = stream_fields(message).into_iter().collect();
    serde_json::to_string(&map).expect("strings serialise")
}

impl Redis {
    pub fn new(
        url: &str,
        channel: String,
        mode: Mode,
        maxlen: Option<u64>,
        tenant_aware: bool,
    ) -> Result<Self, DestinationError> {
        let client = redis::Client::open(url).map_err(|e| {
            DestinationError::invalid(format!(
                "invalid Redis URL {}: {e}",
                crate::dburl::mask(url)
            ))
        })?;
        Ok(Self {
            client,
            conn: Arc::default(),
            channel,
            mode,
            maxlen,
            tenant_aware,
        })
    }
}

async fn connection(
    client: &redis::Client,
    slot: &Mutex<Option<MultiplexedConnection>>,
) -> Result<MultiplexedConnection, PublishError> {
    let mut guard = slot.lock().await;
    if let Some(c) = guard.as_ref() {
        return Ok(c.clone());
    }
    let c = client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| PublishError::away(format!("connecting to Redis: {e}")))?;
    *guard = Some(c.clone());
    Ok(c)
}

impl Redis {
    /// At start: a server that refuses the credentials is a configuration error; one that does
    /// not answer is a warning (the relay finds the destination down and probes it).
    pub async fn check_at_start(&self) -> Result<Option<String>, DestinationError> {
        let connect = tokio::time::timeout(std::time::Duration::from_secs(3), async {
            let mut conn = self.client.get_multiplexed_async_connection().await?;
            redis::cmd("PING").query_async::<String>(&mut conn).await
        })
        .await;
        match connect {
            Ok(Ok(_)) => Ok(None),
            Ok(Err(e))
                if e.kind() == redis::ErrorKind::AuthenticationFailed
                    || matches!(e.code(), Some("NOAUTH" | "WRONGPASS" | "NOPERM")) =>
            {
                Err(DestinationError::refused(format!(
                    "Redis refused the connection ({e}): check the user and password in the URL"
                ))
                .because(e))
            }
            Ok(Err(e)) => Ok(Some(format!("Redis is unreachable ({e})"))),
            Err(_) => Ok(Some("Redis is unreachable (no answer within 3s)".into())),
        }
    }

    /// `PING`, and for a stream that is not tenant-aware, `TYPE` of its key: a key of another
    /// type would make every `XADD` fail with WRONGTYPE.
    async fn check(
        client: redis::Client,
        key: Option<String>,
    ) -> Result<Option<String>, DestinationError> {
        let mut conn = pinged(&client).await?;
        let Some(key) = key else {
            return Ok(Some("answers PING".into()));
        };
        let kind: String = redis::cmd("TYPE")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .map_err(|e| {
                DestinationError::unreachable(format!("Redis TYPE {key}: {e}")).because(e)
            })?;
        match kind.as_str() {
            "stream" => Ok(Some(format!("stream {key} exists"))),
            "none" => Ok(Some(format!(
                "stream {key} will be created by the first XADD"
            ))),
            other => Err(DestinationError::refused(format!(
                "key {key} holds a {other}, not a stream: every XADD would fail with WRONGTYPE"
            ))),
        }
    }
}

/// A fresh connection that has answered `PING`.
async fn pinged(client: &redis::Client) -> Result<MultiplexedConnection, DestinationError> {
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| {
            DestinationError::unreachable(format!("connecting to Redis: {e}")).because(e)
        })?;
    let _: String = redis::cmd("PING")
        .query_async(&mut conn)
        .await
        .map_err(|e| DestinationError::unreachable(format!("Redis PING: {e}")).because(e))?;
    // a replica answers PING and refuses every write (READONLY): not a server to publish to
    // (a user whose ACL does not allow ROLE is not asked twice: its writes will tell)
    let role: Vec<redis::Value> = redis::cmd("ROLE")
        .query_async(&mut conn)
        .await
        .unwrap_or_default();
    if let Some(redis::Value::BulkString(r)) = role.first() {
        if r.as_slice() != b"master" {
            return Err(DestinationError::unreachable(
                "Redis is a read-only replica here (a failover, or the wrong address): point the route at the primary",
            ));
        }
    }
    Ok(conn)
}

/// Error replies that speak of the server's state, not of the message: a replica after a
/// failover, a primary being elected or loading its data, a cluster reconfiguring, a disk that
/// takes no snapshot. The server is away until it takes writes again.
fn server_state(e: &redis::RedisError) -> bool {
    matches!(
        e.code(),
        Some("READONLY" | "MASTERDOWN" | "LOADING" | "TRYAGAIN" | "CLUSTERDOWN" | "MISCONF")
    )
}

impl Publisher for Redis {
    /// A tenant-aware stream is a stream per tenant. Not so for pub/sub: a pattern
    /// subscription sees every tenant's channel as one.
    fn channel_per_tenant(&self) -> bool {
        self.tenant_aware && self.mode == Mode::Stream
    }

    /// The channel or stream key as configured (a tenant-aware one before its tenant prefix).
    fn messaging(&self) -> crate::telemetry::SendTo<'_> {
        crate::telemetry::SendTo {
            system: "redis",
            name: self.channel.as_str().into(),
        }
    }

    fn probe(&self) -> BoxFuture<'static, Result<Option<String>, DestinationError>> {
        let key = (self.mode == Mode::Stream && !self.tenant_aware).then(|| self.channel.clone());
        Box::pin(Self::check(self.client.clone(), key))
    }

    fn default_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(5)
    }

    /// `PING` on a fresh connection, which then serves the publishes.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let (client, slot) = (self.client.clone(), self.conn.clone());
        Box::pin(async move {
            *slot.lock().await = Some(pinged(&client).await?);
            Ok(())
        })
    }

    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (client, slot) = (self.client.clone(), self.conn.clone());
        let (channel, mode, maxlen, tenant_aware) = (
            self.channel.clone(),
            self.mode,
            self.maxlen,
            self.tenant_aware,
        );
        Box::pin(async move {
            let cmd = match mode {
                Mode::Stream => {
                    let key = naming::redis_stream(&channel, tenant_aware, message.tenant_id)?;
                    let mut cmd = redis::cmd("XADD");
                    cmd.arg(key);
                    if let Some(n) = maxlen {
                        cmd.arg("MAXLEN").arg("~").arg(n);
                    }
                    cmd.arg("*");
                    for (field, value) in stream_fields(&message) {
                        cmd.arg(field).arg(value);
                    }
                    cmd
                }
                Mode::PubSub => {
                    let topic = naming::redis_pubsub(&channel, tenant_aware, message.tenant_id)?;
                    let mut cmd = redis::cmd("PUBLISH");
                    cmd.arg(topic).arg(pubsub_body(&message));
                    cmd
                }
            };
            let mut conn = connection(&client, &slot).await?;
            let result: redis::RedisResult<redis::Value> = cmd.query_async(&mut conn).await;
            match result {
                Ok(_) => Ok(()),
                Err(e) => {
                    let gone = e.is_io_error()
                        || e.is_connection_dropped()
                        || e.is_connection_refusal()
                        || e.is_unrecoverable_error()
                        || server_state(&e);
                    if gone || e.is_timeout() {
                        *slot.lock().await = None;
                    }
                    let text = format!("Redis: {e}");
                    // WRONGTYPE and the like are the server's word on this message: an attempt.
                    Err(if e.is_timeout() {
                        PublishError::timed_out(text)
                    } else if gone {
                        PublishError::away(text)
                    } else {
                        PublishError::transient(text)
                    })
                }
            }
        })
    }
}

/// The route options a `redis://` destination takes.
pub const OPTIONS: &[&str] = &["channel", "mode", "maxlen", "tenant_aware"];

/// A route's Redis options, checked (no I/O), and a warning to show.
pub fn plan(
    url: String,
    channel: String,
    dest: &crate::config::Route,
) -> Result<(super::RouteSpec, Option<&'static str>), DestinationError> {
    let (mode, warning) = match dest.mode.as_deref() {
        None | Some("stream") => (Mode::Stream, None),
        Some("pubsub") => (
            Mode::PubSub,
            Some(
                "Redis pub/sub is at-most-once past the broker (a message nobody listens to is gone)",
            ),
        ),
        Some(other) => {
            return Err(DestinationError::invalid(format!(
                "mode {other:?} is not stream or pubsub: set the route's mode to one of them"
            )));
        }
    };
    if mode == Mode::PubSub && dest.maxlen.is_some() {
        return Err(DestinationError::invalid(
            "maxlen applies to mode: stream only",
        ));
    }
    if dest.maxlen == Some(0) {
        // forze takes a positive bound; MAXLEN ~ 0 would trim the stream to nothing
        return Err(DestinationError::invalid(
            "maxlen must be at least 1 (leave it out for a stream without a bound)",
        ));
    }
    let spec = super::RouteSpec::Redis {
        url: url.into(),
        channel,
        mode,
        maxlen: dest.maxlen,
        tenant_aware: dest.tenant_aware.unwrap_or(false),
    };
    Ok((spec, warning))
}
