//! What the benchmarks share: server URLs, staging N rows with COPY, store options.
#![allow(dead_code)]

use std::time::Duration;

use outboxctl::config::{KeyOrder, Storage};
use outboxctl::dburl::DatabaseUrl;
use outboxctl::relay::RelaySettings;
use outboxctl::store::postgres::PgStoreOptions;
use outboxctl::target::RelationSpec;
use sqlx::PgConnection;

#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Retain,
    Consume,
    ConsumeLog,
    Hlc,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Retain => "retain",
            Mode::Consume => "consume",
            Mode::ConsumeLog => "consume + delivery log",
            Mode::Hlc => "retain, HLC order",
        }
    }
    pub fn storage(self) -> Storage {
        match self {
            Mode::Retain | Mode::Hlc => Storage::Retain,
            Mode::Consume | Mode::ConsumeLog => Storage::Consume,
        }
    }
}

pub fn base_url() -> String {
    std::env::var("OUTBOXCTL_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

pub fn url(sync_commit: bool) -> DatabaseUrl {
    let base = base_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    let value = if sync_commit { "on" } else { "off" };
    DatabaseUrl::parse(&format!(
        "{base}{sep}options=-c%20synchronous_commit%3D{value}"
    ))
    .unwrap()
}

pub fn migrate(schema: &str, mode: Mode) {
    let bin = env!("CARGO_BIN_EXE_outboxctl");
    let mut args = vec![
        "migrate".to_owned(),
        "-q".into(),
        "--database-url".into(),
        base_url(),
        "--relation".into(),
        format!("{schema}.outbox"),
    ];
    match mode {
        Mode::Consume => args.extend(["--storage".into(), "consume".into()]),
        Mode::ConsumeLog => args.extend([
            "--storage".into(),
            "consume".into(),
            "--delivery-log".into(),
            format!("{schema}.outbox_delivered"),
        ]),
        Mode::Hlc => args.push("--hlc-ordering".into()),
        Mode::Retain => {}
    }
    let out = std::process::Command::new(bin)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "migrate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub async fn stage(conn: &mut PgConnection, schema: &str, mode: Mode, n: usize) {
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .execute(&mut *conn)
        .await
        .unwrap();
    migrate(schema, mode);
    let hlc_col = if mode == Mode::Hlc { ", hlc" } else { "" };
    let mut copy = conn
        .copy_in_raw(&format!(
            "COPY {schema}.outbox (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key{hlc_col}) FROM STDIN WITH (FORMAT csv)"
        ))
        .await
        .unwrap();
    let start = chrono::Utc::now();
    let mut buf = String::with_capacity(n * 200);
    for i in 0..n {
        let created = start + chrono::Duration::microseconds(i as i64);
        let hlc = if mode == Mode::Hlc {
            // every tenth row has no hlc (legacy), the rest in time order
            if i % 10 == 0 {
                ",".to_owned()
            } else {
                format!(
                    ",{}",
                    (created.timestamp_millis() << 16) | (i as i64 & 0xFFFF)
                )
            }
        } else {
            String::new()
        };
        buf.push_str(&format!(
            "{},bench,{},order.placed,{},\"{{\"\"order_id\"\": {i}, \"\"total\"\": \"\"19.90\"\"}}\",pending,{},k{}{hlc}\n",
            uuid::Uuid::now_v7(),
            uuid::Uuid::now_v7(),
            created.to_rfc3339(),
            created.to_rfc3339(),
            i % 500
        ));
        if buf.len() > 1 << 20 {
            copy.send(buf.as_bytes()).await.unwrap();
            buf.clear();
        }
    }
    copy.send(buf.as_bytes()).await.unwrap();
    copy.finish().await.unwrap();
    // Both sides start from the same physical state: frozen, analysed, no autovacuum racing
    // the run (it would land on one side or the other at random on two cores).
    for sql in [
        format!("ALTER TABLE {schema}.outbox SET (autovacuum_enabled = false)"),
        format!("VACUUM (FREEZE, ANALYZE) {schema}.outbox"),
    ] {
        sqlx::raw_sql(&sql).execute(&mut *conn).await.unwrap();
    }
}

pub fn options(schema: &str, mode: Mode) -> PgStoreOptions {
    PgStoreOptions {
        relation: RelationSpec::parse("relation", &format!("{schema}.outbox")).unwrap(),
        delivery_log: (mode == Mode::ConsumeLog)
            .then(|| RelationSpec::parse("log", &format!("{schema}.outbox_delivered")).unwrap()),
        storage: mode.storage(),
        hlc_ordering: mode == Mode::Hlc,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::BestEffort,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
    }
}

pub fn settings(mode: Mode) -> RelaySettings {
    let config =
        outboxctl::config::Config::resolve(Default::default(), None, &Default::default(), &|_| {
            None
        })
        .unwrap();
    let mut s = RelaySettings::from_config(&config);
    s.storage = mode.storage();
    s.reclaim_stale_after = None;
    s
}
