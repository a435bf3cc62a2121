//! Kafka as forze's stream transport puts it on the wire (forze-wire §4): topic
//! `{namespace}.{channel}`, the ordering key as the native record key, the payload JSON as the
//! value, the envelope headers in order then `forze_type` last (no `forze_key`), CreateTime
//! stamped by the producer. The producer is librdkafka (through `rdkafka`) with `acks=all`, an
//! idempotent producer and the `murmur2_random` partitioner, which for a keyed record is
//! `(murmur2(key) & 0x7fffffff) % partitions`: the Java client's and aiokafka's, so a key lands
//! on the partition forze's producers would pick.
//!
//! Connections: plaintext, TLS (`kafkas://`), SASL (PLAIN, SCRAM) over either.
//!
//! Order: the relay sends a key's next record only after the previous one is acknowledged;
//! the idempotent producer also keeps records of one partition in order across its retries.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::util::Timeout;

use super::{DestinationError, PublishError, Publisher};
use crate::desturl::quoted_if_shown;
use crate::model::Message;

/// `kafka[s]://[user:password@]host:port[,host:port…][?param=value&…]` → librdkafka settings.
/// `kafkas` is TLS (verified against the system's CAs or `ssl_ca_location`); a user and
/// password mean SASL (PLAIN unless `sasl_mechanism` says otherwise) over plaintext or TLS.
#[derive(Clone, PartialEq, Eq)]
pub struct KafkaUrl {
    pub bootstrap: String,
    pub tls: bool,
    pub username: Option<String>,
    pub password: Option<String>,
    /// `(librdkafka key, value)` from the query string.
    pub params: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for KafkaUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaUrl")
            .field("bootstrap", &self.bootstrap)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "****"))
            .field("params", &self.params)
            .finish()
    }
}

/// Query parameters a `kafka://` URL takes, and the librdkafka setting each one sets.
const PARAMS: [(&str, &str); 5] = [
    ("security_protocol", "security.protocol"),
    ("sasl_mechanism", "sasl.mechanism"),
    ("ssl_ca_location", "ssl.ca.location"),
    ("ssl_certificate_location", "ssl.certificate.location"),
    ("ssl_key_location", "ssl.key.location"),
];

impl KafkaUrl {
    pub fn parse(url: &str) -> Result<Self, DestinationError> {
        let shown = crate::dburl::mask(url);
        let (tls, rest) = match (url.strip_prefix("kafka://"), url.strip_prefix("kafkas://")) {
            (Some(rest), _) => (false, rest),
            (_, Some(rest)) => (true, rest),
            _ => {
                return Err(DestinationError::invalid(format!(
                    "{shown} is not a kafka:// or kafkas:// URL"
                )));
            }
        };
        let (authority, query) = rest.split_once('?').unwrap_or((rest, ""));
        let authority = authority.trim_end_matches('/');
        let (userinfo, hosts) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (username, password) = match userinfo {
            None => (None, None),
            Some(u) => {
                let (user, pass) = u.split_once(':').unwrap_or((u, ""));
                (Some(decode(user)?), Some(decode(pass)?))
            }
        };
        let mut bootstrap = Vec::new();
        for host in hosts.split(',') {
            // a password with a raw `?` is cut there and looks like a broker
            let broker = quoted_if_shown(&shown, host)
                .map_or_else(|| "a broker".to_owned(), |h| format!("broker {h}"));
            let (name, port) = host.rsplit_once(':').ok_or_else(|| {
                DestinationError::invalid(format!(
                    "{shown}: {broker} needs a port, e.g. kafka://broker1:9092,broker2:9092"
                ))
            })?;
            if name.is_empty() || !port.parse::<u16>().is_ok_and(|p| p > 0) {
                return Err(DestinationError::invalid(format!(
                    "{shown}: {broker} is not host:port, e.g. kafka://broker1:9092"
                )));
            }
            bootstrap.push(host.to_owned());
        }
        let mut params = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let Some((_, setting)) = PARAMS.iter().find(|(name, _)| *name == key) else {
                let known: Vec<&str> = PARAMS.iter().map(|(name, _)| *name).collect();
                // a password's tail after a raw `?` looks like a parameter
                let key = quoted_if_shown(&shown, key).unwrap_or_else(|| "in the query".into());
                return Err(DestinationError::invalid(format!(
                    "{shown}: unknown parameter {key} (known: {})",
                    known.join(", ")
                )));
            };
            params.push((*setting, decode(value)?));
        }
        Ok(Self {
            bootstrap: bootstrap.join(","),
            tls,
            username,
            password,
            params,
        })
    }

    /// The librdkafka settings for reaching the brokers (no producer settings).
    pub fn client_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap);
        // librdkafka logs to stderr by itself; keep that to real problems.
        c.set("log_level", "3");
        let protocol = match (self.tls, self.username.is_some()) {
            (false, false) => "plaintext",
            (false, true) => "sasl_plaintext",
            (true, false) => "ssl",
            (true, true) => "sasl_ssl",
        };
        c.set("security.protocol", protocol);
        if let Some(user) = &self.username {
            c.set("sasl.username", user);
            c.set("sasl.password", self.password.as_deref().unwrap_or(""));
            c.set("sasl.mechanism", "PLAIN");
        }
        for (key, value) in &self.params {
            c.set(*key, value);
        }
        c
    }
}

fn decode(text: &str) -> Result<String, DestinationError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    DestinationError::invalid(
                        "a %-escape in the kafka:// URL is not two hex digits",
                    )
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| DestinationError::invalid("the kafka:// URL is not UTF-8 once decoded"))
}

/// librdkafka's own log lines, kept to what an operator acts on: its errors as warnings (a
/// broker that refuses the connection, failed authentication), the rest at debug. Its error
/// callback repeats the same condition, and a failed publish already carries it into
/// `last_error`, so that goes to debug too. It also notes when librdkafka reports every
/// broker down, so that a publish that then times out is told apart from one a live broker
/// did not answer.
#[derive(Default)]
pub struct LogContext {
    brokers_down: Arc<AtomicBool>,
    /// The brokers refused the credentials (SASL): why.
    refused: Arc<std::sync::Mutex<Option<String>>>,
}

impl ClientContext for LogContext {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, message: &str) {
        match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error
            | RDKafkaLogLevel::Warning => {
                tracing::warn!(target: "kafka", "librdkafka {facility}: {message}")
            }
            _ => tracing::debug!(target: "kafka", "librdkafka {facility}: {message}"),
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        match error.rdkafka_error_code() {
            Some(RDKafkaErrorCode::AllBrokersDown) => {
                self.brokers_down.store(true, Ordering::Relaxed);
            }
            Some(RDKafkaErrorCode::Authentication | RDKafkaErrorCode::SaslAuthenticationFailed) => {
                *self.refused.lock().expect("not poisoned") = Some(format!("{error}: {reason}"));
            }
            _ => {}
        }
        tracing::debug!(target: "kafka", "librdkafka: {error}: {reason}");
    }
}

/// The relay's producer.
type KafkaProducer = FutureProducer<LogContext>;

/// What `connect` found about the topic.
#[derive(Debug)]
pub enum TopicCheck {
    Found {
        partitions: usize,
    },
    Created {
        partitions: usize,
    },
    /// The brokers did not answer; the relay goes on and publishes fail (and retry) until they do.
    Unreachable(String),
}

pub struct Kafka {
    /// Replaced after the errors [`needs_new_producer`] names (a fatal one among them).
    producer: Arc<RwLock<Arc<KafkaProducer>>>,
    config: ClientConfig,
    topic: Arc<str>,
    ack_timeout: Duration,
    /// With `create_topic`, while the topic may still be missing (the brokers were away at
    /// start): the URL and partition count to create it with on an unknown-topic error.
    create_later: Arc<std::sync::Mutex<Option<(KafkaUrl, u32)>>>,
    /// librdkafka reported every broker down since the last delivery or probe.
    brokers_down: Arc<AtomicBool>,
}

impl Kafka {
    /// Builds the producer and checks the topic exists, creating it (`partitions` partitions,
    /// replication as the broker's default) when `create_topic` is set.
    pub async fn connect(
        url: &str,
        topic: String,
        create_topic: Option<u32>,
        ack_timeout: Duration,
    ) -> Result<(Self, TopicCheck), DestinationError> {
        let url = KafkaUrl::parse(url)?;
        let mut config = url.client_config();
        config
            .set("acks", "all")
            .set("enable.idempotence", "true")
            .set("partitioner", "murmur2_random")
            .set("compression.type", "none")
            // A missing topic is the route's configuration error (or `create_topic`), never
            // created behind the operator's back by a broker's auto.create.topics.enable.
            .set("allow.auto.create.topics", "false")
            .set("linger.ms", "1")
            // The relay's ack timeout bounds a publish; librdkafka retries inside it and
            // gives up a little earlier, so the error says why.
            .set(
                "message.timeout.ms",
                (ack_timeout.as_millis() * 9 / 10).max(1000).to_string(),
            )
            .set("request.timeout.ms", "30000");
        let brokers_down = Arc::new(AtomicBool::new(false));
        let refused = Arc::default();
        let producer: KafkaProducer = config
            .create_with_context(LogContext {
                brokers_down: brokers_down.clone(),
                refused: Arc::clone(&refused),
            })
            .map_err(|e| {
                DestinationError::local(format!("creating the Kafka producer: {e}")).because(e)
            })?;
        let check = check_topic(&producer, &url, &topic, create_topic).await?;
        if let (TopicCheck::Unreachable(_), Some(why)) =
            (&check, refused.lock().expect("not poisoned").clone())
        {
            return Err(DestinationError::refused(format!(
                "the Kafka brokers refused the credentials ({why}): check the user, password and sasl_mechanism"
            )));
        }
        let create_later = match (&check, create_topic) {
            (TopicCheck::Unreachable(_), Some(partitions)) => Some((url, partitions)),
            _ => None,
        };
        Ok((
            Self {
                producer: Arc::new(RwLock::new(Arc::new(producer))),
                config,
                topic: topic.into(),
                ack_timeout,
                create_later: Arc::new(std::sync::Mutex::new(create_later)),
                brokers_down,
            },
            check,
        ))
    }
}

async fn check_topic(
    producer: &KafkaProducer,
    url: &KafkaUrl,
    topic: &str,
    create_topic: Option<u32>,
) -> Result<TopicCheck, DestinationError> {
    let found = {
        let producer = producer.clone();
        let topic = topic.to_owned();
        tokio::task::spawn_blocking(move || partitions_of(&producer, &topic))
            .await
            .map_err(|e| DestinationError::local(e.to_string()).because(e))?
    };
    match found {
        Ok(Some(partitions)) => Ok(TopicCheck::Found { partitions }),
        Err(e) => Ok(TopicCheck::Unreachable(e)),
        Ok(None) => {
            let Some(partitions) = create_topic else {
                return Err(DestinationError::refused(format!(
                    "Kafka topic {topic} does not exist: create it (kafka-topics.sh --create --topic {topic}) or set create_topic: true on the route"
                )));
            };
            create(url, topic, partitions).await?;
            Ok(TopicCheck::Created {
                partitions: partitions as usize,
            })
        }
    }
}

/// Creates the topic (replication as the broker's default); one that exists already is fine.
async fn create(url: &KafkaUrl, topic: &str, partitions: u32) -> Result<(), DestinationError> {
    let admin: AdminClient<LogContext> = url
        .client_config()
        .create_with_context(LogContext::default())
        .map_err(|e| {
            DestinationError::local(format!("creating the Kafka admin client: {e}")).because(e)
        })?;
    let new = NewTopic::new(topic, partitions as i32, TopicReplication::Fixed(-1));
    let results = admin
        .create_topics([&new], &AdminOptions::new())
        .await
        .map_err(|e| {
            DestinationError::unreachable(format!("creating topic {topic}: {e}")).because(e)
        })?;
    for result in results {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((_, code)) => {
                return Err(DestinationError::refused(format!(
                    "creating topic {topic}: {code}"
                )));
            }
        }
    }
    Ok(())
}

/// The topic's partition count, `None` when the brokers say it does not exist.
fn partitions_of(producer: &KafkaProducer, topic: &str) -> Result<Option<usize>, String> {
    let metadata = producer
        .client()
        .fetch_metadata(Some(topic), Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    let Some(t) = metadata.topics().iter().find(|t| t.name() == topic) else {
        return Ok(None);
    };
    match t.error() {
        None if !t.partitions().is_empty() => Ok(Some(t.partitions().len())),
        None => Ok(None),
        Some(e) if RDKafkaErrorCode::from(e) == RDKafkaErrorCode::UnknownTopicOrPartition => {
            Ok(None)
        }
        Some(e) => Err(RDKafkaErrorCode::from(e).to_string()),
    }
}

/// The record headers of a message: the envelope in order, then `forze_type` last.
pub fn headers(message: &Message) -> OwnedHeaders {
    let mut h = OwnedHeaders::new_with_capacity(message.headers.len() + 1);
    for (k, v) in message.headers.iter().filter(|(k, _)| *k != "forze_type") {
        h = h.insert(Header {
            key: k,
            value: Some(v.as_bytes()),
        });
    }
    h.insert(Header {
        key: "forze_type",
        value: Some(message.event_type.as_bytes()),
    })
}

/// Errors the broker will give again for the same record: park the row at once. Not a missing
/// ACL (topic or cluster authorization): an operator adds it while the row waits, so those are
/// retried and park at `max_attempts`, as forze parks every refusal.
fn is_permanent(code: RDKafkaErrorCode) -> bool {
    use RDKafkaErrorCode as C;
    matches!(
        code,
        C::MessageSizeTooLarge
            | C::InvalidMessageSize
            | C::InvalidMessage
            | C::InvalidRecord
            | C::InvalidTopic
            | C::PolicyViolation
            | C::UnsupportedForMessageFormat
    )
}

/// Errors that say the brokers are away rather than judging the record: no broker to talk
/// to, or a record that timed out while librdkafka reported every broker down.
fn is_away(code: Option<RDKafkaErrorCode>, brokers_down: bool) -> bool {
    use RDKafkaErrorCode as C;
    match code {
        Some(C::AllBrokersDown | C::BrokerTransportFailure | C::Resolve) => true,
        Some(C::MessageTimedOut | C::RequestTimedOut) => brokers_down,
        _ => false,
    }
}

/// The producer cannot go on (a fatal error) or a broker lost its state (restarted without
/// it): the record was not judged; a new producer sends it again.
fn lost_producer_state(producer: &KafkaProducer, error: &KafkaError) -> bool {
    use RDKafkaErrorCode as C;
    producer.client().fatal_error().is_some()
        || matches!(
            error.rdkafka_error_code(),
            Some(
                C::UnknownProducerId
                    | C::OutOfOrderSequenceNumber
                    | C::InvalidProducerEpoch
                    | C::ProducerFenced
            )
        )
}

/// After these errors the producer starts afresh: a fatal error (the idempotent producer cannot
/// go on), lost producer state (a broker that forgot the producer id: librdkafka retries such a
/// record until it times out, since not every broker supports the epoch bump of KIP-360), or a
/// timeout. A new producer gets a new producer id; creating one does no I/O.
fn needs_new_producer(producer: &KafkaProducer, error: &KafkaError) -> bool {
    lost_producer_state(producer, error)
        || error.rdkafka_error_code() == Some(RDKafkaErrorCode::MessageTimedOut)
}

/// Drops a producer on a blocking thread once the publishes holding it are done (its drop
/// flushes and joins librdkafka's threads).
fn retire(producer: Arc<KafkaProducer>) {
    tokio::task::spawn_blocking(move || {
        while Arc::strong_count(&producer) > 1 {
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(producer);
    });
}

impl Kafka {
    /// Swaps in a new producer unless another publish did already; the old one is retired.
    fn replace(
        slot: &RwLock<Arc<KafkaProducer>>,
        config: &ClientConfig,
        failed: &Arc<KafkaProducer>,
        brokers_down: &Arc<AtomicBool>,
    ) -> String {
        let mut current = slot.write().expect("producer lock");
        if !Arc::ptr_eq(&current, failed) {
            return String::new();
        }
        let context = LogContext {
            brokers_down: brokers_down.clone(),
            ..LogContext::default()
        };
        match config.create_with_context::<_, KafkaProducer>(context) {
            Ok(fresh) => {
                retire(std::mem::replace(&mut *current, Arc::new(fresh)));
                " (new producer)".to_owned()
            }
            Err(e) => format!(" (recreating the producer: {e})"),
        }
    }
}

impl Publisher for Kafka {
    fn default_timeout(&self) -> Duration {
        self.ack_timeout
    }

    fn messaging(&self) -> crate::telemetry::SendTo<'_> {
        crate::telemetry::SendTo {
            system: "kafka",
            name: (&*self.topic).into(),
        }
    }

    /// A metadata request for the topic from a new producer (a fresh connection: a stalled
    /// broker does not answer it), creating the topic with `create_topic` when it is still
    /// missing. When the brokers answer, that producer (connected, and so already asking for
    /// its producer id) replaces the current one: the broker may have restarted without this
    /// producer's state, and the first publishes after an outage do not pay for a cold
    /// producer's set-up inside their own timeout.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        let (slot, config, topic, create_later, brokers_down) = (
            self.producer.clone(),
            self.config.clone(),
            self.topic.clone(),
            self.create_later.clone(),
            self.brokers_down.clone(),
        );
        Box::pin(async move {
            let (fresh, found) = {
                let (config, topic, brokers_down) =
                    (config.clone(), topic.clone(), brokers_down.clone());
                tokio::task::spawn_blocking(move || {
                    let fresh: KafkaProducer = config
                        .create_with_context(LogContext {
                            brokers_down,
                            ..LogContext::default()
                        })
                        .map_err(|e| {
                            DestinationError::local(format!("creating a Kafka client: {e}"))
                                .because(e)
                        })?;
                    let found = partitions_of(&fresh, &topic);
                    Ok::<_, DestinationError>((fresh, found))
                })
                .await
                .map_err(|e| DestinationError::local(e.to_string()).because(e))??
            };
            let fresh = Arc::new(fresh);
            match found.map_err(|e| DestinationError::unreachable(format!("Kafka metadata: {e}"))) {
                Err(e) => {
                    retire(fresh);
                    return Err(e);
                }
                Ok(Some(_)) => {}
                Ok(None) => {
                    let pending = create_later.lock().expect("create lock").clone();
                    let Some((url, partitions)) = pending else {
                        retire(fresh);
                        return Err(DestinationError::refused(format!(
                            "Kafka topic {topic} does not exist: create it or set create_topic: true on the route"
                        )));
                    };
                    if let Err(e) = create(&url, &topic, partitions).await {
                        retire(fresh);
                        return Err(e);
                    }
                    *create_later.lock().expect("create lock") = None;
                }
            }
            let old = std::mem::replace(&mut *slot.write().expect("producer lock"), fresh);
            retire(old);
            brokers_down.store(false, Ordering::Relaxed);
            Ok(())
        })
    }

    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let brokers_down = self.brokers_down.clone();
        let (slot, config, topic, timeout, create_later) = (
            self.producer.clone(),
            self.config.clone(),
            self.topic.clone(),
            self.ack_timeout,
            self.create_later.clone(),
        );
        Box::pin(async move {
            if brokers_down.load(Ordering::Relaxed) {
                // librdkafka said every broker is down: the record would only wait out its
                // timeout. The relay marks the destination down and probes it.
                return Err(PublishError::away(format!(
                    "Kafka produce to {topic}: all brokers are down"
                )));
            }
            let producer = slot.read().expect("producer lock").clone();
            let record = FutureRecord::to(&topic)
                .key(message.key.as_bytes())
                .payload(message.payload.get().as_bytes())
                .headers(headers(&message));
            let Err((e, _)) = producer.send(record, Timeout::After(timeout)).await else {
                brokers_down.store(false, Ordering::Relaxed);
                return Ok(());
            };
            let all_down = brokers_down.load(Ordering::Relaxed);
            let mut text = format!("Kafka produce to {topic}: {e}");
            let lost_state = lost_producer_state(&producer, &e);
            if needs_new_producer(&producer, &e) {
                text.push_str(&Kafka::replace(&slot, &config, &producer, &brokers_down));
            }
            let unknown_topic = matches!(
                e.rdkafka_error_code(),
                Some(RDKafkaErrorCode::UnknownTopic | RDKafkaErrorCode::UnknownTopicOrPartition)
            );
            let pending = if unknown_topic {
                create_later.lock().expect("create lock").clone()
            } else {
                None
            };
            let creating = pending.is_some();
            if let Some((url, partitions)) = pending {
                match create(&url, &topic, partitions).await {
                    Ok(()) => {
                        *create_later.lock().expect("create lock") = None;
                        text.push_str(" (created the topic: create_topic)");
                    }
                    Err(e) => text.push_str(&format!(" ({e})")),
                }
            }
            let code = e.rdkafka_error_code();
            Err(match e {
                KafkaError::MessageProduction(code) if is_permanent(code) => {
                    PublishError::permanent(text)
                }
                // the broker forgot or fenced the producer (a restart): nothing was judged
                _ if is_away(code, all_down) || lost_state => PublishError::away(text),
                _ if matches!(
                    code,
                    Some(RDKafkaErrorCode::MessageTimedOut | RDKafkaErrorCode::RequestTimedOut)
                ) =>
                {
                    PublishError::timed_out(text)
                }
                _ if unknown_topic && !creating => PublishError::away(format!(
                    "Kafka topic {topic} does not exist: create it or set create_topic: true on the route"
                )),
                _ => PublishError::transient(text),
            })
        })
    }
}

/// The route options a `kafka://` destination takes.
pub const OPTIONS: &[&str] = &["channel", "namespace", "create_topic", "partitions"];

/// A route's Kafka options and URL, checked (no I/O).
pub fn plan(
    url: String,
    channel: String,
    dest: &crate::config::Route,
) -> Result<super::RouteSpec, DestinationError> {
    if dest.partitions.is_some() && dest.create_topic != Some(true) {
        return Err(DestinationError::invalid(
            "partitions applies with create_topic: true only (an existing topic keeps its own)",
        ));
    }
    if dest.partitions == Some(0) {
        return Err(DestinationError::invalid("partitions must be at least 1"));
    }
    KafkaUrl::parse(&url)?;
    let topic = super::naming::kafka_topic(&channel, dest.namespace.as_deref().unwrap_or_default());
    // Kafka's own rule for a topic's name
    let legal = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if topic.is_empty()
        || topic.len() > 249
        || topic == "."
        || topic == ".."
        || !topic.chars().all(legal)
    {
        return Err(DestinationError::invalid(format!(
            "topic {topic:?} is not a Kafka topic name (1 to 249 of letters, digits, '.', '_' and '-'): name it with channel: or namespace:"
        )));
    }
    Ok(super::RouteSpec::Kafka {
        topic,
        url: url.into(),
        create: (dest.create_topic == Some(true)).then(|| dest.partitions.unwrap_or(1)),
    })
}

#[cfg(test)]
mod tests;
