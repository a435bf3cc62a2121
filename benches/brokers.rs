//! Pipelined publishing against the reference relay's one-at-a-time, on the real brokers.
//!
//!     cargo bench --bench brokers                       # N = 50,000 per broker and mode
//!     OUTBOXCTL_BENCH_N=5000 cargo bench --bench brokers
//!     OUTBOXCTL_BENCH_BROKERS=nats,rabbitmq cargo bench --bench brokers
//!
//! For each broker and storage it stages N rows (500 ordering keys) and drains them
//! with the relay twice: pipelined (outboxctl: different keys in flight at once within each
//! chunk of 32, a key's messages in order) and one publish at a time, each acknowledged before
//! the next (forze's way). Same relay, same statements; only the publishing differs.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Mode, base_url, options, settings, url};
use futures_util::future::BoxFuture;
use outboxctl::config::Route;
use outboxctl::destination::{self, BuildContext, PublishError, Publisher, Sink};
use outboxctl::model::Message;
use outboxctl::relay::Relay;
use outboxctl::store::PassTarget;
use outboxctl::store::postgres::PgStore;
use sqlx::{Connection, PgConnection};

const SCHEMA: &str = "bench_brokers";

/// A destination that counts the publishes in flight around the real one: the most at once,
/// and the mean at each publish's start (how many keys pipelining had in flight).
struct InFlight {
    inner: Arc<dyn Publisher>,
    now: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    sum: Arc<AtomicUsize>,
    starts: Arc<AtomicUsize>,
}

impl Publisher for InFlight {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        self.sum.fetch_add(now, Ordering::SeqCst);
        self.starts.fetch_add(1, Ordering::SeqCst);
        let (fut, counter) = (self.inner.publish(message), self.now.clone());
        Box::pin(async move {
            let r = fut.await;
            counter.fetch_sub(1, Ordering::SeqCst);
            r
        })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        self.inner.flush()
    }

    fn serial(&self) -> bool {
        self.inner.serial()
    }

    fn default_timeout(&self) -> Duration {
        self.inner.default_timeout()
    }
}

/// Drains the staged rows through `sink`, counting publishes in flight; events, time, and
/// (most, mean) publishes in flight.
async fn drain(sink: Sink, mode: Mode, one_at_a_time: bool) -> (u64, Duration, (usize, f64)) {
    let Sink::Publisher(inner) = sink else {
        unreachable!("brokers are publishers")
    };
    let counted = InFlight {
        inner,
        now: Arc::default(),
        most: Arc::default(),
        sum: Arc::default(),
        starts: Arc::default(),
    };
    let (most, sum, starts) = (
        counted.most.clone(),
        counted.sum.clone(),
        counted.starts.clone(),
    );
    let (published, d) =
        drain_through(Sink::Publisher(Arc::new(counted)), mode, one_at_a_time).await;
    let starts = starts.load(Ordering::SeqCst).max(1);
    let mean = sum.load(Ordering::SeqCst) as f64 / starts as f64;
    (published, d, (most.load(Ordering::SeqCst), mean))
}

async fn drain_through(sink: Sink, mode: Mode, one_at_a_time: bool) -> (u64, Duration) {
    let store = PgStore::connect(
        &url(false),
        Duration::from_secs(10),
        options(SCHEMA, mode, false),
    )
    .await
    .unwrap();
    let mut s = settings(mode);
    s.one_at_a_time = one_at_a_time;
    let target = PassTarget {
        route: common::ROUTE.into(),
        tenant: None,
    };
    let mut relay = Relay::single(store, vec![(target, sink)], s);
    let started = Instant::now();
    let stats = relay.drain_once(None, |_, _| {}).await;
    assert_eq!(stats[0].failed_passes, 0, "{:?}", stats[0].last_error);
    assert_eq!(stats[0].retried, 0, "{:?}", stats[0].last_error);
    (stats[0].published, started.elapsed())
}

async fn sink(to: &str, channel: &str) -> Sink {
    let kafka = to.starts_with("kafka://");
    let dest = Route {
        channel: Some(channel.into()),
        // Kafka: the topic is created on first use (6 partitions)
        create_topic: kafka.then_some(true),
        partitions: kafka.then_some(6),
        ..Route::new(destination::DestinationUrl::parse(to).expect("destination URL"))
    };
    let ctx = BuildContext {
        reclaim_stale_after: Some(Duration::from_secs(300)),
        ack_timeout: Duration::from_secs(10),
    };
    destination::build("bench", &dest, &Arc::new(Mutex::new(())), ctx)
        .await
        .expect("destination")
        .0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n: usize = std::env::var("OUTBOXCTL_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);
    let mut conn = PgConnection::connect(&base_url())
        .await
        .expect("PostgreSQL (run scripts/services.sh)");
    common::bench_role(&mut conn).await;

    // NATS JetStream: a stream for the subject, deleted afterwards
    let js = async_nats::jetstream::new(
        async_nats::connect("nats://127.0.0.1:4222")
            .await
            .expect("NATS on 4222"),
    );
    let _ = js.delete_stream("bench_outbox").await;
    js.create_stream(async_nats::jetstream::stream::Config {
        name: "bench_outbox".into(),
        subjects: vec!["bench.orders".into()],
        duplicate_window: Duration::from_secs(300),
        ..Default::default()
    })
    .await
    .unwrap();
    // RabbitMQ: a durable queue, deleted afterwards
    let amqp = lapin::Connection::connect(
        "amqp://guest:guest@127.0.0.1:5672/%2f",
        lapin::ConnectionProperties::default(),
    )
    .await
    .expect("RabbitMQ on 5672");
    let ch = amqp.create_channel().await.unwrap();
    let durable = lapin::options::QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    ch.queue_declare("bench.orders", durable, Default::default())
        .await
        .unwrap();

    println!(
        "N = {n} per run; one pipelined and one one-at-a-time drain per broker and storage (500 keys)"
    );
    println!(
        "{:<16} {:<9} {:>16} {:>18} {:>8} {:>22}",
        "broker",
        "storage",
        "pipelined ev/s",
        "one-at-a-time ev/s",
        "ratio",
        "in flight (most, mean)"
    );
    let brokers = [
        ("nats", "nats://127.0.0.1:4222", "bench.orders"),
        (
            "rabbitmq",
            "amqp://guest:guest@127.0.0.1:5672/%2f",
            "bench.orders",
        ),
        ("redis stream", "redis://127.0.0.1:6379", "bench:orders"),
        ("kafka (tansu)", "kafka://127.0.0.1:19092", "bench.orders"),
    ];
    // OUTBOXCTL_BENCH_BROKERS=nats,kafka runs only the brokers whose names start so
    let only: Option<Vec<String>> = std::env::var("OUTBOXCTL_BENCH_BROKERS")
        .ok()
        .map(|v| v.split(',').map(|b| b.trim().to_owned()).collect());
    let brokers = brokers.into_iter().filter(|(name, _, _)| {
        only.as_ref()
            .is_none_or(|o| o.iter().any(|b| name.starts_with(b.as_str())))
    });
    for (name, to, channel) in brokers {
        for mode in [Mode::Retain, Mode::Consume] {
            let mut rates = [0.0f64; 2];
            let mut flight = (0, 0.0);
            for (i, one) in [false, true].into_iter().enumerate() {
                common::stage_keys(&mut conn, SCHEMA, mode, n, 500).await;
                let (published, d, in_flight) = drain(sink(to, channel).await, mode, one).await;
                assert_eq!(published as usize, n);
                rates[i] = published as f64 / d.as_secs_f64();
                if !one {
                    flight = in_flight;
                }
            }
            let storage = if mode == Mode::Retain {
                "retain"
            } else {
                "consume"
            };
            println!(
                "{:<16} {:<9} {:>16.0} {:>18.0} {:>8.1} {:>14} {:>7.1}",
                name,
                storage,
                rates[0],
                rates[1],
                rates[0] / rates[1],
                flight.0,
                flight.1
            );
        }
    }
    let _ = js.delete_stream("bench_outbox").await;
    let _ = ch.queue_delete("bench.orders", Default::default()).await;
    let mut r = redis::Client::open("redis://127.0.0.1:6379")
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: () = redis::cmd("DEL")
        .arg("bench:orders")
        .query_async(&mut r)
        .await
        .unwrap();
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
    println!("target: pipelined >= 5x one-at-a-time on NATS JetStream and RabbitMQ with confirms");
}
