//! What the benchmarks share: server URLs, staging N rows as `physical-limit.sh` does, store
//! options, a pgbouncer.
#![allow(
    dead_code,
    reason = "each benchmark uses part of what they share; expect would fail in the one that uses it all"
)]

use std::time::Duration;

use outboxctl::dburl::DatabaseUrl;
use outboxctl::model::{KeyOrder, Storage};
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
    /// Consume storage, every row staged with one `created_at` (one transaction's `now()`).
    ConsumeTies,
    /// Consume storage under `key_order: strict` (its two indexes).
    Strict,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Retain => "retain",
            Mode::Consume => "consume",
            Mode::ConsumeLog => "consume + delivery log",
            Mode::Hlc => "retain HLC order",
            Mode::ConsumeTies => "consume one created_at",
            Mode::Strict => "consume strict order",
        }
    }

    pub fn storage(self) -> Storage {
        match self {
            Mode::Retain | Mode::Hlc => Storage::Retain,
            Mode::Consume | Mode::ConsumeLog | Mode::ConsumeTies | Mode::Strict => Storage::Consume,
        }
    }

    pub fn hlc(self) -> bool {
        self == Mode::Hlc
    }

    pub fn key_order(self) -> KeyOrder {
        if self == Mode::Strict {
            KeyOrder::Strict
        } else {
            KeyOrder::BestEffort
        }
    }

    /// The flags that set up this mode, for `migrate` and `relay`.
    pub fn flags(self, schema: &str) -> Vec<String> {
        let mut out: Vec<String> = match self.storage() {
            Storage::Consume => vec!["--storage".into(), "consume".into()],
            Storage::Retain => vec![],
        };
        match self {
            Mode::ConsumeLog => out.extend([
                "--delivery-log".into(),
                format!("{schema}.outbox_delivered"),
            ]),
            Mode::Hlc => out.push("--hlc-ordering".into()),
            Mode::Strict => out.extend(["--key-order".into(), "strict".into()]),
            _ => {}
        }
        out
    }
}

/// The row counts to run: `OUTBOXCTL_BENCH_N` (comma-separated), else `default`.
pub fn sizes(default: &[usize]) -> Vec<usize> {
    match std::env::var("OUTBOXCTL_BENCH_N") {
        Ok(v) => v
            .split(',')
            .map(|s| s.trim().parse().expect("OUTBOXCTL_BENCH_N: numbers"))
            .collect(),
        Err(_) => default.to_vec(),
    }
}

pub fn base_url() -> String {
    std::env::var("OUTBOXCTL_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// The role the measured sides connect as: `synchronous_commit = off` is its own setting, so
/// it holds through a pooler too (which refuses the `options` startup parameter).
pub const BENCH_ROLE: &str = "outboxctl_bench";

/// Creates [`BENCH_ROLE`] (a superuser on the test server, trust authentication) once.
pub async fn bench_role(conn: &mut PgConnection) {
    sqlx::raw_sql(&format!(
        "DO $$ BEGIN CREATE ROLE {BENCH_ROLE} LOGIN SUPERUSER; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
         ALTER ROLE {BENCH_ROLE} SET synchronous_commit = off"
    ))
    .execute(conn)
    .await
    .unwrap();
}

/// The test server as [`BENCH_ROLE`] (synchronous_commit off), or with it on.
pub fn url(sync_commit: bool) -> DatabaseUrl {
    let mut options: sqlx::postgres::PgConnectOptions = base_url().parse().unwrap();
    options = options.username(BENCH_ROLE);
    let (host, port, db) = (
        options.get_host().to_owned(),
        options.get_port(),
        options.get_database().unwrap_or("test").to_owned(),
    );
    let on = if sync_commit {
        "?options=-c%20synchronous_commit%3Don"
    } else {
        ""
    };
    DatabaseUrl::parse(&format!("postgres://{BENCH_ROLE}@{host}:{port}/{db}{on}")).unwrap()
}

/// A pgbouncer (`scripts/pgbouncer`, transaction pooling, its defaults) in front of the test
/// server for [`BENCH_ROLE`]; stopped when dropped.
pub struct Bouncer {
    child: std::process::Child,
    dir: std::path::PathBuf,
    pub url: DatabaseUrl,
}

impl Bouncer {
    pub fn start() -> Self {
        use std::os::unix::process::CommandExt;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let options: sqlx::postgres::PgConnectOptions = base_url().parse().unwrap();
        let db = options.get_database().unwrap_or("test").to_owned();
        let dir = std::env::temp_dir().join(format!("outboxctl-bench-pgbouncer-{port}"));
        let child =
            std::process::Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pgbouncer"))
                .arg(&dir)
                .args([
                    port.to_string(),
                    "transaction".into(),
                    options.get_host().into(),
                ])
                .args([
                    options.get_port().to_string(),
                    db.clone(),
                    BENCH_ROLE.into(),
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .process_group(0)
                .spawn()
                .expect("scripts/pgbouncer (run scripts/services.sh to install pgbouncer)");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "pgbouncer did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Self {
            child,
            dir,
            url: DatabaseUrl::parse(&format!("postgres://{BENCH_ROLE}@127.0.0.1:{port}/{db}"))
                .unwrap(),
        }
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
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
    args.extend(mode.flags(schema));
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

/// The route every benchmark stages and relays (`../shared/bench/physical-limit.sh`'s).
pub const ROUTE: &str = "orders";

/// Stages `n` pending rows as `physical-limit.sh` does (50 ordering keys), into a fresh schema
/// migrated for `mode`.
pub async fn stage(conn: &mut PgConnection, schema: &str, mode: Mode, n: usize) {
    stage_keys(conn, schema, mode, n, 50).await
}

/// The same with `keys` ordering keys: one `INSERT … SELECT … FROM generate_series`, each row
/// `created_at` a microsecond after the last (or, for [`Mode::ConsumeTies`], all one), with HLC
/// ordering an hlc rising with it (every tenth row none, as a legacy row); then the table is
/// frozen and analysed, with autovacuum off on it, so that no side meets autovacuum at random.
pub async fn stage_keys(conn: &mut PgConnection, schema: &str, mode: Mode, n: usize, keys: usize) {
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .execute(&mut *conn)
        .await
        .unwrap();
    migrate(schema, mode);
    let created = if mode == Mode::ConsumeTies {
        "now() - interval '1 hour'"
    } else {
        "clock_timestamp() - interval '1 hour' + g * interval '1 microsecond'"
    };
    let (hlc_col, hlc) = if mode.hlc() {
        (
            ", hlc",
            ", CASE WHEN g % 10 = 0 THEN NULL ELSE (1764583200000::bigint + g) << 16 END",
        )
    } else {
        ("", "")
    };
    sqlx::raw_sql(&format!(
        "INSERT INTO {schema}.outbox (id, outbox_route, event_id, event_type, correlation_id, occurred_at, payload, status,
                       created_at, attempts, ordering_key{hlc_col})
SELECT gen_random_uuid(), '{ROUTE}', gen_random_uuid(), 'order.placed', gen_random_uuid(), now(),
       jsonb_build_object('order_id', g, 'total', '19.90'), 'pending',
       {created}, 0, 'key-' || (g % {keys}){hlc}
FROM generate_series(1, {n}) g"
    ))
    .execute(&mut *conn)
    .await
    .unwrap();
    for sql in [
        format!("ALTER TABLE {schema}.outbox SET (autovacuum_enabled = false)"),
        format!("VACUUM (FREEZE, ANALYZE) {schema}.outbox"),
    ] {
        sqlx::raw_sql(&sql).execute(&mut *conn).await.unwrap();
    }
}

/// The store's options; `prepared`: named, cached statements (one round trip each).
pub fn options(schema: &str, mode: Mode, prepared: bool) -> PgStoreOptions {
    PgStoreOptions {
        relation: RelationSpec::parse("relation", &format!("{schema}.outbox")).unwrap(),
        delivery_log: (mode == Mode::ConsumeLog)
            .then(|| RelationSpec::parse("log", &format!("{schema}.outbox_delivered")).unwrap()),
        storage: mode.storage(),
        hlc_ordering: mode.hlc(),
        propagate_trace: false,
        tenant_aware: false,
        key_order: mode.key_order(),
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: prepared,
        // migrate adds the registry: with named statements the claim reads its pauses, as a
        // relay's does (OUTBOXCTL_BENCH_PAUSES=off leaves it out, =on puts it in the default
        // statements too, to measure what that check costs)
        pauses: match std::env::var("OUTBOXCTL_BENCH_PAUSES").as_deref() {
            Ok("off") => false,
            Ok("on") => true,
            _ => prepared,
        }
        .then(|| {
            outboxctl::target::QualifiedName::parse(
                "pauses",
                &format!("{schema}.outbox_relays_pauses"),
            )
            .unwrap()
        }),
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
    s.key_order = mode.key_order();
    s.reclaim_stale_after = None;
    s
}
