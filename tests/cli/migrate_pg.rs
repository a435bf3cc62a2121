//! `migrate` on a real PostgreSQL: the catalog afterwards is exactly the specification's.

use sqlx::Row;
use sqlx::postgres::PgConnection;

use crate::common::{CHECK_FAILED, OK, PgSchema, ob};

pub(crate) fn migrate(schema: &PgSchema, extra: &[&str]) -> crate::common::Run {
    ob(["migrate"]).pg(&schema.rel("outbox")).args(extra).run()
}

/// (name, type, not null, default) of every column, read independently of outboxctl.
async fn columns(
    conn: &mut PgConnection,
    schema: &str,
    table: &str,
) -> Vec<(String, String, bool, Option<String>)> {
    sqlx::query(
        "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
           FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = ($1 || '.' || $2)::regclass AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum",
    )
    .bind(schema)
    .bind(table)
    .fetch_all(conn)
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
    .collect()
}

/// Every index definition of a table, sorted.
pub(crate) async fn indexdefs(conn: &mut PgConnection, schema: &str, table: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = ($1 || '.' || $2)::regclass ORDER BY 1",
    )
    .bind(schema)
    .bind(table)
    .fetch_all(conn)
    .await
    .unwrap()
}

fn col(
    name: &str,
    ty: &str,
    not_null: bool,
    default: Option<&str>,
) -> (String, String, bool, Option<String>) {
    (name.into(), ty.into(), not_null, default.map(Into::into))
}

fn spec_columns() -> Vec<(String, String, bool, Option<String>)> {
    let tz = "timestamp with time zone";
    vec![
        col("id", "uuid", true, None),
        col("outbox_route", "text", true, None),
        col("event_id", "uuid", true, None),
        col("event_type", "text", true, None),
        col("tenant_id", "uuid", false, None),
        col("execution_id", "uuid", false, None),
        col("correlation_id", "uuid", false, None),
        col("causation_id", "uuid", false, None),
        col("occurred_at", tz, true, None),
        col("payload", "jsonb", true, None),
        col("status", "text", true, None),
        col("created_at", tz, true, None),
        col("published_at", tz, false, None),
        col("processing_at", tz, false, None),
        col("last_error", "text", false, None),
        col("attempts", "integer", true, Some("0")),
        col("available_at", tz, false, None),
        col("ordering_key", "text", false, None),
    ]
}

#[tokio::test]
async fn fresh_migrate_creates_exactly_the_specified_schema() {
    let (schema, mut conn) = PgSchema::absent(test_name!()).await;
    let s = schema.name.as_str();
    let r = migrate(
        &schema,
        &[
            "--hlc-ordering",
            "--propagate-trace",
            "--storage",
            "consume",
            "--delivery-log",
            &schema.rel("outbox_delivered"),
            "--hlc-checkpoint",
            &schema.rel("hlc_checkpoint"),
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stdout.contains("applied: create table"), "{r:?}");

    let mut want = spec_columns();
    want.push(col("traceparent", "text", false, None));
    want.push(col("hlc", "bigint", false, None));
    assert_eq!(columns(&mut conn, s, "outbox").await, want);
    assert_eq!(
        indexdefs(&mut conn, s, "outbox").await,
        vec![
            format!(
                "CREATE INDEX outbox_claim_hlc_idx ON {s}.outbox USING btree (outbox_route, status, available_at, hlc, created_at, id)"
            ),
            format!(
                "CREATE INDEX outbox_claim_idx ON {s}.outbox USING btree (outbox_route, status, available_at, created_at)"
            ),
            format!(
                "CREATE UNIQUE INDEX outbox_outbox_route_event_id_key ON {s}.outbox USING btree (outbox_route, event_id)"
            ),
            format!("CREATE UNIQUE INDEX outbox_pkey ON {s}.outbox USING btree (id)"),
        ]
    );
    // the unique key is a constraint, as the specification writes it
    let constraints: Vec<String> = sqlx::query_scalar(
        "SELECT conname::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = ($1 || '.outbox')::regclass ORDER BY 1",
    )
    .bind(s)
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        constraints,
        [
            "outbox_outbox_route_event_id_key UNIQUE (outbox_route, event_id)",
            "outbox_pkey PRIMARY KEY (id)"
        ]
    );

    assert_eq!(
        columns(&mut conn, s, "hlc_checkpoint").await,
        vec![
            col("node_key", "text", true, None),
            col("hlc", "bigint", true, None)
        ]
    );
    assert_eq!(
        columns(&mut conn, s, "outbox_delivered").await,
        vec![
            col("id", "uuid", true, None),
            col("outbox_route", "text", true, None),
            col("event_id", "uuid", true, None),
            col("tenant_id", "uuid", false, None),
            col("published_at", "timestamp with time zone", true, None),
        ]
    );
    let partkey: String =
        sqlx::query_scalar("SELECT pg_get_partkeydef(($1 || '.outbox_delivered')::regclass)")
            .bind(s)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(partkey, "RANGE (published_at)");
    let default_bound: String = sqlx::query_scalar(
        "SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE oid = ($1 || '.outbox_delivered_default')::regclass",
    )
    .bind(s)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(default_bound, "DEFAULT");
    assert!(indexdefs(&mut conn, s, "outbox_delivered")
        .await
        .contains(&format!("CREATE INDEX outbox_delivered_event_idx ON ONLY {s}.outbox_delivered USING btree (event_id)")));

    // A second run finds nothing to do; --check agrees.
    let r = migrate(
        &schema,
        &[
            "--hlc-ordering",
            "--propagate-trace",
            "--storage",
            "consume",
            "--delivery-log",
            &schema.rel("outbox_delivered"),
            "--hlc-checkpoint",
            &schema.rel("hlc_checkpoint"),
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains("up to date") && !r.stdout.contains("applied"),
        "{r:?}"
    );
}

#[tokio::test]
async fn legacy_table_gains_the_retry_columns_and_keeps_its_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    sqlx::raw_sql(&format!(
        "CREATE TABLE {s}.outbox (
            id UUID PRIMARY KEY, outbox_route TEXT NOT NULL, event_id UUID NOT NULL, event_type TEXT NOT NULL,
            tenant_id UUID, execution_id UUID, correlation_id UUID, causation_id UUID,
            occurred_at TIMESTAMPTZ NOT NULL, payload JSONB NOT NULL, status TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL, published_at TIMESTAMPTZ, processing_at TIMESTAMPTZ,
            last_error TEXT, UNIQUE (outbox_route, event_id));
         INSERT INTO {s}.outbox (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at)
         VALUES (gen_random_uuid(), 'orders', gen_random_uuid(), 'order.placed', now(), '{{}}', 'pending', now());"
    ))
    .execute(&mut conn)
    .await
    .unwrap();

    let r = migrate(&schema, &["--dry-run"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains(&format!(
            "ALTER TABLE {s}.outbox\n    ADD COLUMN attempts INT NOT NULL DEFAULT 0,\n    ADD COLUMN available_at TIMESTAMPTZ,\n    ADD COLUMN ordering_key TEXT;"
        )),
        "the specification's ALTER: {r:?}"
    );
    assert!(
        r.stdout.contains(&format!(
            "CREATE INDEX CONCURRENTLY outbox_claim_idx ON {s}.outbox"
        )),
        "{r:?}"
    );

    let r = migrate(&schema, &[]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(columns(&mut conn, s, "outbox").await, spec_columns());
    let attempts: i32 = sqlx::query_scalar(&format!("SELECT attempts FROM {s}.outbox"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(attempts, 0);
    assert!(
        indexdefs(&mut conn, s, "outbox")
            .await
            .iter()
            .any(|d| d.contains("outbox_claim_idx"))
    );
    assert_eq!(migrate(&schema, &["--check"]).code, OK);
}

#[tokio::test]
async fn dry_run_changes_nothing_and_check_exits_1() {
    let (schema, mut conn) = PgSchema::absent(test_name!()).await;
    let r = migrate(&schema, &["--dry-run"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout
            .contains(&format!("CREATE SCHEMA IF NOT EXISTS {};", schema.name)),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains(&format!("CREATE TABLE {}.outbox (", schema.name)),
        "{r:?}"
    );
    let r = migrate(&schema, &["--check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("missing: create table"), "{r:?}");
    let r = migrate(&schema, &["--check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["status"], "pending");
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)")
            .bind(&schema.name)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert!(!exists, "dry run and check created the schema");
    assert_eq!(migrate(&schema, &[]).code, OK);
    assert_eq!(migrate(&schema, &["--check"]).code, OK);
    // A later configuration change shows up as a difference.
    let r = migrate(&schema, &["--check", "--hlc-ordering"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("add column hlc") && r.stdout.contains("outbox_claim_hlc_idx"),
        "{r:?}"
    );
}

#[tokio::test]
async fn wrong_types_and_differing_indexes_are_reported_and_left_alone() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    assert_eq!(migrate(&schema, &[]).code, OK);
    sqlx::raw_sql(&format!(
        "ALTER TABLE {s}.outbox ALTER COLUMN last_error TYPE varchar(200);
         DROP INDEX {s}.outbox_claim_idx;
         CREATE INDEX outbox_claim_idx ON {s}.outbox (outbox_route, created_at);"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = migrate(&schema, &[]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout
            .contains("column last_error is character varying(200), expected text"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("outbox_claim_idx: is defined as USING btree (outbox_route, created_at)"),
        "{r:?}"
    );
    let ty: String = sqlx::query_scalar(&format!(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '{s}.outbox'::regclass AND attname = 'last_error'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(ty, "character varying(200)", "left alone");
}

#[tokio::test]
async fn an_invalid_index_is_detected_and_rebuilt() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    assert_eq!(migrate(&schema, &[]).code, OK);
    // What an interrupted CREATE INDEX CONCURRENTLY leaves behind.
    sqlx::raw_sql(&format!(
        "UPDATE pg_index SET indisvalid = false WHERE indexrelid = '{s}.outbox_claim_idx'::regclass"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = migrate(&schema, &["--check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("rebuild invalid index"), "{r:?}");
    let r = migrate(&schema, &[]);
    assert_eq!(r.code, OK, "{r:?}");
    let valid: bool = sqlx::query_scalar(&format!(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = '{s}.outbox_claim_idx'::regclass"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(valid);
}

/// A delivery log left without any day (a migrate cut short after creating it) gets today and
/// the days ahead from the next migrate, as a new one does; one with days is left to
/// `partitions add-ahead`.
#[tokio::test]
async fn a_delivery_log_without_days_gets_them_from_the_next_migrate() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let log = schema.rel("outbox_delivered");
    let consume = ["--storage", "consume", "--delivery-log", &log];
    assert_eq!(migrate(&schema, &consume).code, OK);
    let days = async |conn: &mut PgConnection| -> i64 {
        sqlx::query_scalar(
            "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
              WHERE i.inhparent = $1::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'",
        )
        .bind(&log)
        .fetch_one(conn)
        .await
        .unwrap()
    };
    let made = days(&mut conn).await;
    assert!(made > 0);
    // as a migrate cut short leaves it: the log and its default partition, no day
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = $1::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'",
    )
    .bind(&log)
    .fetch_all(&mut conn)
    .await
    .unwrap();
    for n in names {
        sqlx::raw_sql(&format!("DROP TABLE {n}"))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    assert_eq!(days(&mut conn).await, 0);
    let r = ob(["migrate", "--check"])
        .pg(&schema.rel("outbox"))
        .args(consume)
        .run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("attach partition of"), "{r:?}");
    assert_eq!(migrate(&schema, &consume).code, OK);
    assert_eq!(days(&mut conn).await, made);
    assert_eq!(migrate(&schema, &consume).code, OK);
    assert_eq!(
        days(&mut conn).await,
        made,
        "a log with days is left as it is"
    );
}

/// What `migrate --dry-run` prints is the migration: run by psql (each statement on its own,
/// stopping at the first error), it leaves nothing for `migrate --check` to miss. With every
/// part (strict order's claim function, the mark function, a delivery log and its partitions'
/// indexes, the checkpoint), so the plan has steps of each kind. The functions' statements
/// once ended without `;` and psql read the next one into them.
#[tokio::test]
async fn the_dry_run_plan_run_by_psql_is_the_migration() {
    let (schema, _conn) = PgSchema::absent(test_name!()).await;
    let (log, checkpoint) = (schema.rel("outbox_delivered"), schema.rel("hlc_checkpoint"));
    // retain: both functions; consume: the claim function and a partitioned delivery log
    let cases: [(&str, &[&str]); 2] = [
        ("kept", &["--hlc-checkpoint", &checkpoint]),
        (
            "consumed",
            &["--storage", "consume", "--delivery-log", &log],
        ),
    ];
    for (table, parts) in cases {
        let migrate = |more: &str| {
            ob(["migrate", more, "--key-order", "strict"])
                .pg(&schema.rel(table))
                .args(parts)
                .run()
        };
        let plan = migrate("--dry-run");
        assert_eq!(plan.code, OK, "{plan:?}");
        assert!(
            plan.stdout.contains("$outboxctl$"),
            "{table}: a function: {plan:?}"
        );
        let psql = psql(&plan.stdout);
        assert!(
            psql.status.success(),
            "{table}: psql: {}\n{}",
            String::from_utf8_lossy(&psql.stderr),
            plan.stdout
        );
        let check = migrate("--check");
        assert_eq!(
            check.code, OK,
            "{table}: after the plan, nothing is missing: {check:?}"
        );
    }
}

/// psql running `script` from its standard input, stopping at the first error.
fn psql(script: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("psql")
        .args([
            &crate::common::pg_url(),
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
        ])
        .args(["-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("psql runs (Debian's postgresql-client)");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// While a column of the outbox differs from the specification's, `migrate` makes no function of
/// the pass (its body reads the columns as the specification types them) and says so; the rest
/// is applied, and `--format json` says `problems` (exit 1) with `applied` true: it said
/// `applied`. Once the column is fixed, the next run makes them.
#[tokio::test]
async fn migrate_makes_no_function_of_the_pass_while_a_column_differs() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    assert_eq!(migrate(&schema, &[]).code, OK);
    let (t, s) = (schema.rel("outbox"), &schema.name);
    let functions = async |conn: &mut PgConnection| -> Vec<String> {
        sqlx::query_scalar(
            "SELECT oid::regprocedure::text FROM pg_proc WHERE pronamespace = $1::regnamespace",
        )
        .bind(s)
        .fetch_all(conn)
        .await
        .unwrap()
    };
    let made = functions(&mut conn).await;
    assert_eq!(made.len(), 2, "retain's claim and mark: {made:?}");
    let alter = |ty: &str| format!("ALTER TABLE {t} ALTER attempts TYPE {ty}");
    let drops: String = made.iter().map(|f| format!("DROP FUNCTION {f};")).collect();
    let broken = format!(
        "{drops} {}; DROP INDEX {s}.outbox_claim_idx",
        alter("bigint")
    );
    sqlx::raw_sql(&broken).execute(&mut conn).await.unwrap();

    let r = migrate(&schema, &["--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = r.json();
    assert_eq!(v["status"], "problems", "{v}");
    assert_eq!(v["applied"], true, "{v}");
    let steps = v["steps"].to_string();
    assert!(
        steps.contains("outbox_claim_idx") && !steps.contains("function"),
        "{v}"
    );
    let problem = "column attempts is bigint, expected integer";
    assert!(v["problems"].to_string().contains(problem), "{v}");
    let waits = format!(
        "the functions of the pass wait until the columns of {t} are as the specification has them"
    );
    assert!(v["warnings"].to_string().contains(&waits), "{v}");
    assert_eq!(functions(&mut conn).await, Vec::<String>::new());

    sqlx::raw_sql(&alter("integer"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = migrate(&schema, &[]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.stdout.matches("applied: create the").count(), 2, "{r:?}");
    assert!(!r.stderr.contains("wait until"), "{r:?}");
    assert_eq!(functions(&mut conn).await.len(), 2);
}
