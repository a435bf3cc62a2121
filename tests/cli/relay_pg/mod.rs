//! The relay on a real PostgreSQL: every rule of semantics.md that applies, in both storages;
//! the helpers the parts share (a destination that fails on purpose, settings, a store).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use outboxctl::destination::{PublishError, Publisher, Sink};
use outboxctl::model::Message;
use outboxctl::model::{KeyOrder, Storage};
use outboxctl::relay::RelaySettings;
use outboxctl::relay::engine::{PassOptions, run_pass};
use outboxctl::store::postgres::{PgStore, PgStoreOptions};
use outboxctl::store::{PassTarget, RelayStore};
use outboxctl::target::RelationSpec;
use serde_json::Value;
use sqlx::Row;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, OK, PgSchema, REFUSED, count, lines, migrate, ob, out_file, pg_url, stage,
};

mod ahead;
mod claim;
mod cli;
mod engine;
mod function;
mod strict;

fn relay_once(schema: &PgSchema, to: &str, extra: &[&str]) -> crate::common::Run {
    ob(["relay", "--once", "--route", "orders", "--to", to])
        .pg(&schema.rel("outbox"))
        .args(extra)
        .run()
}

/// A destination that fails the publishes it is told to, and records what it published.
type FailWhen = Box<dyn Fn(&Message, usize) -> Option<PublishError> + Send + Sync>;

struct Flaky {
    fail: FailWhen,
    calls: AtomicUsize,
    published: std::sync::Mutex<Vec<Message>>,
    delay: Duration,
}

impl Flaky {
    fn new(
        fail: impl Fn(&Message, usize) -> Option<PublishError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            fail: Box::new(fail),
            calls: AtomicUsize::new(0),
            published: Default::default(),
            delay: Duration::ZERO,
        })
    }
}

impl Publisher for Flaky {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let result = match (self.fail)(&message, n) {
            Some(e) => Err(e),
            None => {
                self.published.lock().unwrap().push((*message).clone());
                Ok(())
            }
        };
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            result
        })
    }
}

fn strict_settings(storage: Storage) -> RelaySettings {
    let mut s = settings(storage);
    s.key_order = KeyOrder::Strict;
    s
}

fn settings(storage: Storage) -> RelaySettings {
    let config =
        outboxctl::config::Config::resolve(Default::default(), None, &Default::default(), &|_| {
            None
        })
        .unwrap();
    let mut s = RelaySettings::from_config(&config);
    s.storage = storage;
    s
}

fn store_options(schema: &PgSchema, storage: Storage, key_order: KeyOrder) -> PgStoreOptions {
    PgStoreOptions {
        relation: RelationSpec::parse("relation", &schema.rel("outbox")).unwrap(),
        delivery_log: None,
        storage,
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
        pauses: None,
    }
}

async fn store(schema: &PgSchema, storage: Storage, key_order: KeyOrder) -> PgStore<'static> {
    let opts = store_options(schema, storage, key_order);
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap()
}

fn target() -> PassTarget {
    PassTarget {
        route: "orders".into(),
        tenant: None,
    }
}

/// With the events on stdout, the summary is a message on stderr: `-q` hides it, unless JSON
/// was asked for.
#[tokio::test]
async fn to_stdout_the_summary_is_a_message_on_stderr() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let runs: [(i64, &[&str]); 3] = [(3, &["-q"]), (2, &["-q", "--format", "json"]), (1, &[])];
    for (n, flags) in runs {
        stage(&mut conn, &t, "orders", n, None).await;
        let r = relay_once(&schema, "stdout", flags);
        assert_eq!(r.code, OK, "{r:?}");
        assert_eq!(r.stdout.lines().count() as i64, n, "the events only: {r:?}");
        match flags {
            ["-q"] => assert!(r.stderr.is_empty(), "{flags:?}: {r:?}"),
            ["-q", ..] => {
                let summary: Value = serde_json::from_str(&r.stderr).expect("JSON on stderr");
                assert_eq!(summary[0]["published"], n, "{r:?}");
            }
            _ => assert!(
                r.stderr.contains("claimed") && r.stderr.contains("orders"),
                "{r:?}"
            ),
        }
    }
}

/// `relay --once` on an outbox table that is not there (no `migrate` yet, a wrong relation)
/// exits 2 with what to do, as every other command does, not 1 as a pass that failed by chance.
#[tokio::test]
async fn relay_once_on_a_missing_table_is_a_setup_error() {
    let (schema, _conn) = PgSchema::absent(test_name!()).await;
    let r = relay_once(&schema, "file:/dev/null", &[]);
    assert_eq!(r.code, crate::common::ERROR, "{r:?}");
    let said = ["route orders:", "does not exist", "run `outboxctl migrate`"];
    assert!(said.iter().all(|s| r.stderr.contains(s)), "{r:?}");
}

#[tokio::test]
async fn the_summary_gives_the_delivery_lag_from_created_at() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    // staged three seconds ago (the writer's clock, as stored)
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET created_at = now() - interval '3 seconds'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = relay_once(&schema, "file:/dev/null", &["--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let s = &r.json()[0];
    let (p50, p99) = (
        s["lag_p50_ms"].as_f64().unwrap(),
        s["lag_p99_ms"].as_f64().unwrap(),
    );
    assert!((3_000.0..120_000.0).contains(&p50), "{s}");
    assert!(p99 >= p50, "{s}");
    stage(&mut conn, &t, "orders", 2, None).await;
    let r = relay_once(&schema, "file:/dev/null", &[]);
    assert!(
        r.stdout.contains("lag p50 ms") && r.stdout.contains("lag p99 ms"),
        "{r:?}"
    );
    // nothing published: the keys are there, null (they were left out)
    let r = relay_once(&schema, "file:/dev/null", &["--format", "json"]);
    let s = &r.json()[0];
    assert_eq!(
        (s.get("lag_p50_ms"), s.get("lag_p99_ms")),
        (
            Some(&serde_json::Value::Null),
            Some(&serde_json::Value::Null)
        ),
        "{s}"
    );
}
