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

use super::{PublishError, Publisher, naming};
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

async fn open(url: &str) -> Result<(Arc<Connection>, Channel), lapin::Error> {
    let conn = Connection::connect(url, ConnectionProperties::default()).await?;
    let channel = conn.create_channel().await?;
    channel
        .confirm_select(ConfirmSelectOptions::default())
        .await?;
    Ok((Arc::new(conn), channel))
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
    /// An unreachable broker is not an error here: publishes fail and retry until it is back.
    pub async fn connect(url: &str, opts: AmqpOptions) -> Result<(Self, Option<String>), String> {
        let mut warning = None;
        let slot = match open(url).await {
            Ok((conn, channel)) => {
                if !opts.tenant_aware && opts.exchange.is_none() {
                    let queue = naming::rabbitmq_queue(&opts.channel, &opts.namespace, false, None)
                        .map_err(|e| e.message)?;
                    if let Err(e) = prepare_queue(&channel, &queue, &opts).await {
                        return Err(if opts.declare {
                            format!("declaring queue {queue}: {e}")
                        } else {
                            format!(
                                "queue {queue} does not exist or cannot be used ({e}): create it, or set declare: true on the route"
                            )
                        });
                    }
                }
                Some((conn, channel))
            }
            Err(e) => {
                warning = Some(format!(
                    "RabbitMQ at {} is unreachable ({e}); publishes will retry",
                    crate::dburl::mask(url)
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
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let (url, opts, slot) = (self.url.clone(), self.opts.clone(), self.slot.clone());
        Box::pin(async move {
            let queue = naming::rabbitmq_queue(
                &opts.channel,
                &opts.namespace,
                opts.tenant_aware,
                message.tenant_id,
            )?;
            let channel = {
                let mut guard = slot.lock().await;
                match guard.as_ref() {
                    Some((_, ch)) if ch.status().connected() => ch.clone(),
                    _ => {
                        let (conn, ch) = open(&url).await.map_err(|e| {
                            PublishError::transient(format!("connecting to RabbitMQ: {e}"))
                        })?;
                        if opts.tenant_aware || opts.declare {
                            prepare_queue(&ch, &queue, &opts).await.map_err(|e| {
                                PublishError::transient(format!("queue {queue}: {e}"))
                            })?;
                        }
                        *guard = Some((conn, ch.clone()));
                        ch
                    }
                }
            };
            if opts.tenant_aware && opts.declare {
                prepare_queue(&channel, &queue, &opts)
                    .await
                    .map_err(|e| PublishError::transient(format!("queue {queue}: {e}")))?;
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
                    Err(PublishError::transient(format!("RabbitMQ: {e}")))
                }
            }
        })
    }
}
