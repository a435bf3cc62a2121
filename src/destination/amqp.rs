//! RabbitMQ (AMQP 0.9.1, lapin) as forze's queue transport puts it on the wire (forze-wire §3):
//! default exchange, routing key = the queue, `mandatory`, persistent, `application/json`, a
//! random hex `message_id`, the `type` property, the envelope headers plus `forze_key`, and
//! publisher confirms awaited. An unroutable (returned) message is a failed publish.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use lapin::options::{
    BasicPublishOptions, ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions,
    QueueDeclareOptions,
};
use lapin::publisher_confirm::Confirmation;
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use lapin::{BasicProperties, Channel, Connection, ConnectionProperties, ExchangeKind};
use tokio::sync::Mutex;

use super::{DestinationError, PublishError, Publisher, naming};
use crate::model::Message;

#[derive(Debug, Clone, Default)]
pub struct AmqpOptions {
    pub channel: String,
    pub namespace: String,
    pub tenant_aware: bool,
    /// Publish to this exchange instead of the default one (routing key: the queue name).
    pub exchange: Option<String>,
    /// Declare the queue (durable, with the dead-letter argument) instead of checking it exists.
    pub declare: bool,
    pub dead_letter_exchange: Option<String>,
}

/// The open connection and its confirm-mode channel, reopened after a failure.
type Slot = Arc<Mutex<Option<(Arc<Connection>, Channel)>>>;

pub struct Amqp {
    url: String,
    opts: AmqpOptions,
    slot: Slot,
}

/// How long opening a connection (TCP, handshake, channel, confirm mode) may take.
const OPEN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Opens a connection and a confirm-mode channel, within [`OPEN_TIMEOUT`]. A broker that
/// answers and refuses (authentication, an unknown vhost, no permission) is
/// [`DestinationError::Refused`]; no connection, or no answer in time, is unreachable.
async fn open(url: &str) -> Result<(Arc<Connection>, Channel), DestinationError> {
    // read when the configuration loaded ([`crate::desturl`]): it cannot fail here
    let uri = crate::desturl::amqp_uri(url).map_err(DestinationError::refused)?;
    let opened = tokio::time::timeout(OPEN_TIMEOUT, async {
        let conn = Connection::connect_uri(uri, ConnectionProperties::default()).await?;
        let channel = conn.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        Ok::<_, lapin::Error>((Arc::new(conn), channel))
    })
    .await;
    match opened {
        Ok(Ok(open)) => Ok(open),
        Ok(Err(e @ lapin::Error::ProtocolError(_))) => Err(DestinationError::refused(format!(
            "RabbitMQ refused the connection: {e}"
        ))
        .because(e)),
        Ok(Err(e)) => {
            Err(DestinationError::unreachable(format!("connecting to RabbitMQ: {e}")).because(e))
        }
        Err(_) => Err(DestinationError::unreachable(format!(
            "connecting to RabbitMQ: no answer within {}",
            crate::duration::Dur(OPEN_TIMEOUT)
        ))),
    }
}

fn queue_args(opts: &AmqpOptions) -> FieldTable {
    let mut args = FieldTable::default();
    if let Some(dlx) = &opts.dead_letter_exchange {
        args.insert(
            ShortString::from("x-dead-letter-exchange"),
            AMQPValue::LongString(LongString::from(dlx.as_str())),
        );
    }
    args
}

/// Checks (passive declare) or declares the queue, as the route asks.
async fn prepare_queue(
    channel: &Channel,
    queue: &str,
    opts: &AmqpOptions,
) -> Result<(), lapin::Error> {
    if opts.declare {
        if let Some(dlx) = &opts.dead_letter_exchange {
            let durable = ExchangeDeclareOptions {
                durable: true,
                ..Default::default()
            };
            channel
                .exchange_declare(dlx, ExchangeKind::Fanout, durable, FieldTable::default())
                .await?;
            let dlq = format!("{dlx}.dlq");
            channel
                .queue_declare(
                    &dlq,
                    QueueDeclareOptions {
                        durable: true,
                        ..Default::default()
                    },
                    FieldTable::default(),
                )
                .await?;
            channel
                .queue_bind(
                    &dlq,
                    dlx,
                    "",
                    QueueBindOptions::default(),
                    FieldTable::default(),
                )
                .await?;
        }
        channel
            .queue_declare(
                queue,
                QueueDeclareOptions {
                    durable: true,
                    ..Default::default()
                },
                queue_args(opts),
            )
            .await?;
    } else {
        channel
            .queue_declare(
                queue,
                QueueDeclareOptions {
                    passive: true,
                    ..Default::default()
                },
                FieldTable::default(),
            )
            .await?;
    }
    Ok(())
}

/// What a passive declare of an exchange found.
enum ExchangeCheck {
    Found,
    /// The broker's NOT_FOUND or ACCESS_REFUSED: the route cannot publish there.
    Refused(lapin::Error),
    /// No answer in time, or the connection failed: the broker is away, not the exchange.
    NoAnswer(String),
}

/// A passive declare of `exchange`, within [`OPEN_TIMEOUT`].
async fn check_exchange(channel: &Channel, exchange: &str) -> ExchangeCheck {
    let passive = ExchangeDeclareOptions {
        passive: true,
        ..Default::default()
    };
    let declared = channel.exchange_declare(
        exchange,
        ExchangeKind::Direct,
        passive,
        FieldTable::default(),
    );
    match tokio::time::timeout(OPEN_TIMEOUT, declared).await {
        Ok(Ok(())) => ExchangeCheck::Found,
        Ok(Err(e)) if refused_by_broker(&e) => ExchangeCheck::Refused(e),
        Ok(Err(e)) => ExchangeCheck::NoAnswer(e.to_string()),
        Err(_) => ExchangeCheck::NoAnswer(format!(
            "no answer within {}",
            crate::duration::Dur(OPEN_TIMEOUT)
        )),
    }
}

/// An exchange the broker refused (NOT_FOUND, ACCESS_REFUSED), with the fix.
fn exchange_refused(exchange: &str, e: lapin::Error) -> DestinationError {
    let text = format!(
        "exchange {exchange} does not exist or cannot be used ({e}): declare it on the broker, or drop the route's exchange to publish through the default one"
    );
    DestinationError::refused(text).because(e)
}

/// The broker's NOT_FOUND or ACCESS_REFUSED.
fn refused_by_broker(e: &lapin::Error) -> bool {
    use lapin::protocol::{AMQPErrorKind, AMQPSoftError};
    matches!(e, lapin::Error::ProtocolError(p) if matches!(
        p.kind(),
        AMQPErrorKind::Soft(AMQPSoftError::NOTFOUND | AMQPSoftError::ACCESSREFUSED)
    ))
}

/// The message's properties: exactly the ones forze sets.
pub fn properties(message: &Message) -> BasicProperties {
    let mut headers = FieldTable::default();
    for (k, v) in &message.headers {
        if *k != "forze_key" {
            headers.insert(
                ShortString::from(*k),
                AMQPValue::LongString(LongString::from(v.as_str())),
            );
        }
    }
    headers.insert(
        ShortString::from("forze_key"),
        AMQPValue::LongString(LongString::from(message.key.as_str())),
    );
    BasicProperties::default()
        .with_content_type(ShortString::from("application/json"))
        .with_delivery_mode(2)
        .with_message_id(ShortString::from(uuid::Uuid::new_v4().simple().to_string()))
        .with_type(ShortString::from(message.event_type.as_str()))
        .with_headers(headers)
}

impl Amqp {
    /// Connects and checks (or declares) the queue when it does not depend on the row's tenant.
    /// An unreachable broker is not an error here (the relay starts with the destination down);
    /// a broker that refuses the connection (credentials, vhost) is.
    pub async fn connect(
        url: &str,
        opts: AmqpOptions,
    ) -> Result<(Self, Option<String>), DestinationError> {
        let mut warning = None;
        let slot = match open(url).await {
            Ok((conn, channel)) => {
                // a missing exchange closes the channel at the first publish (NOT_FOUND), and
                // every publish in flight with it: said now, as a missing queue is. Only the
                // broker's NOT_FOUND or ACCESS_REFUSED refuses; anything else (no answer in
                // time, the connection lost) leaves the route to wait for the broker.
                if let Some(exchange) = opts.exchange.as_deref().filter(|e| !e.is_empty()) {
                    match check_exchange(&channel, exchange).await {
                        ExchangeCheck::Found => {}
                        ExchangeCheck::Refused(e) => return Err(exchange_refused(exchange, e)),
                        ExchangeCheck::NoAnswer(e) => {
                            warning = Some(format!(
                                "RabbitMQ at {} did not answer the check of exchange {exchange} ({e}); {}",
                                crate::dburl::mask(url),
                                super::ROUTES_WAIT
                            ));
                        }
                    }
                }
                if !opts.tenant_aware && opts.exchange.is_none() {
                    let queue = naming::rabbitmq_queue(&opts.channel, &opts.namespace, false, None)
                        .map_err(|e| DestinationError::invalid(e.message))?;
                    if let Err(e) = prepare_queue(&channel, &queue, &opts).await {
                        return Err(queue_refused(&queue, &opts, e));
                    }
                }
                Some((conn, channel))
            }
            Err(DestinationError::Refused { message, source }) => {
                return Err(DestinationError::Refused {
                    message: format!(
                        "{message}: check the user, password and vhost of {} (an empty path or / is the vhost /)",
                        crate::dburl::mask(url)
                    ),
                    source,
                });
            }
            Err(e) => {
                warning = Some(format!(
                    "RabbitMQ at {} is unreachable ({e}); {}",
                    crate::dburl::mask(url),
                    super::ROUTES_WAIT
                ));
                None
            }
        };
        Ok((
            Self {
                url: url.to_owned(),
                opts,
                slot: Arc::new(Mutex::new(slot)),
            },
            warning,
        ))
    }
}

impl Publisher for Amqp {
    /// Tenant-aware through the default exchange: a queue per tenant. Through an exchange of
    /// one's own, bindings may gather several tenants' routing keys into one queue.
    fn channel_per_tenant(&self) -> bool {
        self.opts.tenant_aware && self.opts.exchange.is_none()
    }

    /// The exchange when one is named, else the queue (a tenant-aware one before its tenant
    /// prefix): the default exchange routes by queue name.
    fn messaging(&self) -> crate::telemetry::SendTo<'_> {
        let name: std::borrow::Cow<'_, str> = match &self.opts.exchange {
            Some(exchange) => exchange.as_str().into(),
            None => naming::rabbitmq_queue(&self.opts.channel, &self.opts.namespace, false, None)
                .map_or_else(|_| self.opts.channel.as_str().into(), Into::into),
        };
        crate::telemetry::SendTo {
            system: "rabbitmq",
            name,
        }
    }

    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (url, opts, slot) = (self.url.clone(), self.opts.clone(), self.slot.clone());
        Box::pin(async move {
            // the `type` property is a short string: a longer one would be cut at its length
            // byte and the frame the broker reads broken (it closes the connection)
            if message.event_type.len() > 255 {
                return Err(PublishError::permanent(format!(
                    "event {} has an event_type of {} bytes; the AMQP type property holds 255 at most",
                    message.event_id,
                    message.event_type.len()
                )));
            }
            let queue = naming::rabbitmq_queue(
                &opts.channel,
                &opts.namespace,
                opts.tenant_aware,
                message.tenant_id,
            )?;
            let channel = {
                let mut guard = slot.lock().await;
                match guard.as_ref() {
                    // a resource alarm: the broker reads nothing this connection sends
                    Some((conn, _)) if conn.status().blocked() => {
                        return Err(PublishError::away(BLOCKED));
                    }
                    Some((_, ch)) if ch.status().connected() => ch.clone(),
                    _ => {
                        let (conn, ch) = open(&url)
                            .await
                            .map_err(|e| PublishError::away(e.to_string()))?;
                        if opts.tenant_aware || opts.declare {
                            prepare_queue(&ch, &queue, &opts)
                                .await
                                .map_err(|e| PublishError::away(queue_error(&queue, &opts, &e)))?;
                        }
                        *guard = Some((conn, ch.clone()));
                        ch
                    }
                }
            };
            if opts.tenant_aware && opts.declare {
                prepare_queue(&channel, &queue, &opts)
                    .await
                    .map_err(|e| PublishError::away(queue_error(&queue, &opts, &e)))?;
            }
            let exchange = opts.exchange.as_deref().unwrap_or("");
            let publish = channel
                .basic_publish(
                    exchange,
                    &queue,
                    BasicPublishOptions {
                        mandatory: true,
                        immediate: false,
                    },
                    message.payload.get().as_bytes(),
                    properties(&message),
                )
                .await;
            let confirm = match publish {
                Ok(c) => c.await,
                Err(e) => Err(e),
            };
            match confirm {
                Ok(Confirmation::Ack(None)) | Ok(Confirmation::NotRequested) => Ok(()),
                Ok(Confirmation::Ack(Some(returned))) => Err(PublishError::transient(format!(
                    "RabbitMQ returned the message as unroutable ({} {}) from exchange {exchange:?} with routing key {queue}",
                    returned.reply_code, returned.reply_text
                ))),
                Ok(Confirmation::Nack(_)) => Err(PublishError::transient(
                    "RabbitMQ refused the message (basic.nack)",
                )),
                Err(e) => {
                    *slot.lock().await = None;
                    Err(closed(e, message.payload.get().len()))
                }
            }
        })
    }

    /// The connection the broker blocked (a resource alarm) is not back until the broker
    /// unblocks it: a fresh one would be blocked only once it publishes. Otherwise a fresh
    /// connection (the handshake is a round trip), with the exchange or queue checked as at
    /// start; it then serves the publishes.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let (url, opts, slot) = (self.url.clone(), self.opts.clone(), self.slot.clone());
        Box::pin(async move {
            let blocked = (slot.lock().await.as_ref())
                .is_some_and(|(conn, _)| conn.status().connected() && conn.status().blocked());
            if blocked {
                return Err(DestinationError::unreachable(BLOCKED));
            }
            let (conn, channel) = open(&url).await?;
            if let Some(exchange) = opts.exchange.as_deref().filter(|e| !e.is_empty()) {
                match check_exchange(&channel, exchange).await {
                    ExchangeCheck::Found => {}
                    ExchangeCheck::Refused(e) => return Err(exchange_refused(exchange, e)),
                    ExchangeCheck::NoAnswer(e) => {
                        return Err(DestinationError::unreachable(format!(
                            "RabbitMQ did not answer the check of exchange {exchange} ({e})"
                        )));
                    }
                }
            }
            if !opts.tenant_aware && opts.exchange.is_none() {
                let queue = naming::rabbitmq_queue(&opts.channel, &opts.namespace, false, None)
                    .map_err(|e| DestinationError::invalid(e.message))?;
                prepare_queue(&channel, &queue, &opts)
                    .await
                    .map_err(|e| queue_refused(&queue, &opts, e))?;
            }
            *slot.lock().await = Some((conn, channel));
            Ok(())
        })
    }
}

const BLOCKED: &str = "RabbitMQ blocks publishing on this connection: a resource alarm (memory or disk) is set on the broker";

/// A publish (of a body of `len` bytes) whose channel closed under it. Closed by the broker
/// with a soft error, the broker judged a message: one over `max_message_size`
/// (`PRECONDITION_FAILED - message size N is larger than …`) is this one when N is its size, and
/// parks at once, while the others in flight on the channel were not judged. An exchange that
/// does not exist (`NOT_FOUND`: deleted while the relay runs) is away, as a missing queue is:
/// no message was judged, and the probe finds it down until the exchange is back (retried to
/// `max_attempts`, the backlog parked within seconds). Another soft error (a publish not
/// allowed) refuses every message alike, a refusal an operator fixes while the rows wait,
/// retried to `max_attempts`. Otherwise the connection or channel went away and the broker
/// never judged the message.
fn closed(e: lapin::Error, len: usize) -> PublishError {
    use lapin::protocol::{AMQPErrorKind, AMQPSoftError};
    let lapin::Error::ProtocolError(amqp) = &e else {
        return PublishError::away(format!("RabbitMQ: {e}"));
    };
    let text = amqp.get_message().as_str();
    let refused = format!("RabbitMQ refused the message: {text}");
    match amqp.kind() {
        AMQPErrorKind::Soft(AMQPSoftError::PRECONDITIONFAILED) => {
            if text.contains(&format!("message size {len} ")) {
                PublishError::permanent(refused)
            } else {
                PublishError::away(format!(
                    "RabbitMQ closed the channel over another message: {text}"
                ))
            }
        }
        AMQPErrorKind::Soft(AMQPSoftError::NOTFOUND) => PublishError::away(format!(
            "RabbitMQ: {text}: declare the exchange on the broker; its routes wait until it exists"
        )),
        AMQPErrorKind::Soft(_) => PublishError::transient(refused),
        AMQPErrorKind::Hard(_) => PublishError::away(format!("RabbitMQ: {e}")),
    }
}

/// What a failed queue check or declaration says, with the fix.
fn queue_error(queue: &str, opts: &AmqpOptions, e: &lapin::Error) -> String {
    if opts.declare {
        format!("declaring queue {queue}: {e}")
    } else {
        format!(
            "queue {queue} does not exist or cannot be used ({e}): create it, or set declare: true on the route"
        )
    }
}

/// A failed queue check or declaration, with the fix.
fn queue_refused(queue: &str, opts: &AmqpOptions, e: lapin::Error) -> DestinationError {
    DestinationError::refused(queue_error(queue, opts, &e)).because(e)
}

/// The route options an `amqp://` destination takes.
pub const OPTIONS: &[&str] = &[
    "channel",
    "namespace",
    "tenant_aware",
    "exchange",
    "declare",
    "dead_letter_exchange",
];

/// A route's AMQP options (no I/O). `dead_letter_exchange` only with `declare: true`: a queue
/// only checked keeps the arguments it was declared with, and the option would do nothing.
pub fn plan(
    url: String,
    channel: String,
    dest: &crate::config::Route,
) -> Result<super::RouteSpec, DestinationError> {
    if dest.dead_letter_exchange.is_some() && dest.declare != Some(true) {
        return Err(DestinationError::invalid(
            "dead_letter_exchange applies with declare: true only (a queue only checked keeps the arguments it was declared with)",
        ));
    }
    Ok(super::RouteSpec::Amqp {
        url: url.into(),
        opts: AmqpOptions {
            channel,
            namespace: dest.namespace.clone().unwrap_or_default(),
            tenant_aware: dest.tenant_aware.unwrap_or(false),
            exchange: dest.exchange.clone(),
            declare: dest.declare.unwrap_or(false),
            dead_letter_exchange: dest.dead_letter_exchange.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::destination::Refusal;

    /// The channel the broker closed over an oversize message refuses that message for good
    /// (its size is the one named), and leaves the others in flight on it unjudged.
    #[test]
    fn a_channel_closed_over_a_message_refuses_that_message_alone() {
        use lapin::protocol::{AMQPError, AMQPErrorKind, AMQPSoftError};
        let close = |kind, text: &str| {
            lapin::Error::ProtocolError(AMQPError::new(AMQPErrorKind::Soft(kind), text.into()))
        };
        let too_big =
            "PRECONDITION_FAILED - message size 200 is larger than configured max size 100";
        let e = super::closed(close(AMQPSoftError::PRECONDITIONFAILED, too_big), 200);
        assert_eq!(e.kind, Refusal::Permanent);
        let e = super::closed(close(AMQPSoftError::PRECONDITIONFAILED, too_big), 20);
        assert_eq!(e.kind, Refusal::Away, "another message's size");
        let no_exchange = "NOT_FOUND - no exchange 'x' in vhost '/'";
        let e = super::closed(close(AMQPSoftError::NOTFOUND, no_exchange), 20);
        assert_eq!(e.kind, Refusal::Away, "no message judged");
        let denied = "ACCESS_REFUSED - write access to exchange 'x' in vhost '/' refused";
        let e = super::closed(close(AMQPSoftError::ACCESSREFUSED, denied), 20);
        assert_eq!(e.kind, Refusal::Transient);
        let e = super::closed(
            lapin::Error::InvalidChannelState(lapin::ChannelState::Closed),
            20,
        );
        assert_eq!(e.kind, Refusal::Away);
    }
}
