//! The claim's plans: how much of the index a claim reads, whatever the backlog, ties or contention.

use super::*;

#[tokio::test]
async fn the_claim_reads_about_a_batch_of_index_entries_whatever_the_backlog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--hlc-ordering"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 100_000, Some(1000)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 1 WHERE (payload->>'n')::int % 50 = 0;
         UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 997 = 0;
         UPDATE {t} SET hlc = (payload->>'n')::bigint << 16 WHERE (payload->>'n')::int % 10 <> 0;
         ANALYZE {t};"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    for (hlc, storage) in [
        (false, Storage::Retain),
        (true, Storage::Retain),
        (false, Storage::Consume),
        (true, Storage::Consume),
    ] {
        let plan = explain_claim(&mut conn, &t, storage, hlc, KeyOrder::BestEffort).await;
        let mut scans = Vec::new();
        collect_scans(&plan[0]["Plan"], &mut scans);
        assert!(
            scans.iter().all(|(node, _, _)| node != "Seq Scan"),
            "hlc={hlc}: {scans:?}"
        );
        let fresh = scans
            .iter()
            .find(|(_, cond, _)| cond.contains("available_at IS NULL"))
            .expect("fresh range scan");
        assert!(
            fresh.2 <= 200.0,
            "hlc={hlc} {storage}: the never-retried range read {} rows for a batch of 100",
            fresh.2
        );
        let total: f64 = scans.iter().map(|s| s.2).sum();
        assert!(
            total < 1000.0,
            "hlc={hlc} {storage}: index scans read {total} rows in all with 100,000 pending: {scans:?}"
        );
    }
}

/// `EXPLAIN (ANALYZE, BUFFERS)` of the claim for a batch of 100 of route `orders`, in a
/// transaction rolled back after.
async fn explain_claim(
    conn: &mut PgConnection,
    t: &str,
    storage: Storage,
    hlc: bool,
    key_order: KeyOrder,
) -> Value {
    let sql = claim_text(t, storage, hlc, key_order, None);
    sqlx::raw_sql("BEGIN").execute(&mut *conn).await.unwrap();
    let plan = sqlx::query_scalar(&format!(
        "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) {sql}"
    ))
    .bind("orders")
    .bind(100i64)
    .bind(chrono::Utc::now())
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await.unwrap();
    plan
}

/// The claim's text; `pauses`: tenant-aware (`$4` the tenant) and reading that pauses table,
/// else neither.
fn claim_text(
    t: &str,
    storage: Storage,
    hlc: bool,
    key_order: KeyOrder,
    pauses: Option<&str>,
) -> String {
    let opts = PgStoreOptions {
        relation: RelationSpec::parse("relation", t).unwrap(),
        delivery_log: None,
        storage,
        hlc_ordering: hlc,
        propagate_trace: false,
        tenant_aware: pauses.is_some(),
        key_order,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
        pauses: pauses.map(|p| outboxctl::target::QualifiedName::parse("pauses", p).unwrap()),
    };
    outboxctl::store::postgres::claim_sql(
        &outboxctl::target::QualifiedName::parse("r", t).unwrap(),
        &opts,
    )
}

/// With `prepared_statements: true` PostgreSQL keeps a claim's generic plan, made without the
/// route's, limit's and time's values, once it costs no more than the custom plans: that plan
/// must read the claim index as a custom plan does, never the whole table (a sequential scan,
/// or a hash join over it, was the generic plan before due retries said `IS NOT NULL` and
/// retain updated by `id = ANY (ARRAY(…))`: 6–25 ms a claim instead of 1–2). Each shape
/// plain, and tenant-aware reading the route pauses table.
#[tokio::test]
async fn a_claims_generic_plan_reads_the_index_not_the_table() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--hlc-ordering", "--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 20_000, Some(50)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 1 WHERE (payload->>'n')::int % 400 = 0;
         UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 997 = 0;
         UPDATE {t} SET tenant_id = '00000000-0000-0000-0000-0000000000a1' WHERE (payload->>'n')::int % 2 = 0;
         ANALYZE {t};"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let pauses = schema.rel("outbox_relays_pauses");
    let shapes = [Storage::Retain, Storage::Consume]
        .into_iter()
        .flat_map(|storage| {
            [false, true].into_iter().flat_map(move |hlc| {
                [KeyOrder::BestEffort, KeyOrder::Strict]
                    .into_iter()
                    .map(move |key_order| (storage, hlc, key_order))
            })
        });
    for (storage, hlc, key_order) in shapes {
        for pauses in [None, Some(pauses.as_str())] {
            let sql = claim_text(&t, storage, hlc, key_order, pauses);
            let (types, tenant) = match pauses {
                None => ("", ""),
                Some(_) => (", uuid", ", '00000000-0000-0000-0000-0000000000a1'"),
            };
            sqlx::raw_sql(&format!(
                "BEGIN; SET LOCAL plan_cache_mode = force_generic_plan;
                 PREPARE generic_claim(text, bigint, timestamptz{types}) AS {sql}"
            ))
            .execute(&mut conn)
            .await
            .unwrap();
            let plan: Value = sqlx::query_scalar(&format!(
                "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) EXECUTE generic_claim('orders', 100, now(){tenant})"
            ))
            .fetch_one(&mut conn)
            .await
            .unwrap();
            sqlx::raw_sql("ROLLBACK; DEALLOCATE generic_claim")
                .execute(&mut conn)
                .await
                .unwrap();
            let mut scans = Vec::new();
            collect_scans(&plan[0]["Plan"], &mut scans);
            let read: f64 = scans.iter().map(|s| s.2).sum();
            let case =
                format!("{storage}, hlc={hlc}, {key_order:?}, tenant and pauses: {pauses:?}");
            assert!(
                scans.iter().all(|(node, _, _)| node != "Seq Scan") && read < 2_000.0,
                "{case}: the generic plan read {read} rows: {scans:?}"
            );
        }
    }
}

/// Heap fetches of every index-only scan of the plan.
fn heap_fetches(node: &Value) -> f64 {
    node["Heap Fetches"].as_f64().unwrap_or(0.0)
        + node["Plans"]
            .as_array()
            .into_iter()
            .flatten()
            .map(heap_fetches)
            .sum::<f64>()
}

/// The most times any node under a subplan ran (a correlated probe runs once per outer row).
fn max_subplan_loops(node: &Value) -> u64 {
    let here = if node["Parent Relationship"] == "SubPlan" {
        node["Actual Loops"].as_u64().unwrap_or(0)
    } else {
        0
    };
    node["Plans"]
        .as_array()
        .into_iter()
        .flatten()
        .map(max_subplan_loops)
        .fold(here, u64::max)
}

fn collect_scans(node: &Value, out: &mut Vec<(String, String, f64)>) {
    let kind = node["Node Type"].as_str().unwrap_or_default().to_owned();
    if kind.contains("Scan") && node.get("Relation Name").is_some() {
        let cond = node["Index Cond"].as_str().unwrap_or_default().to_owned();
        let rows = node["Actual Rows"].as_f64().unwrap_or(0.0)
            * node["Actual Loops"].as_f64().unwrap_or(1.0);
        out.push((kind, cond, rows));
    }
    if let Some(children) = node["Plans"].as_array() {
        for c in children {
            collect_scans(c, out);
        }
    }
}

/// Rows staged in one transaction share one `created_at` (PostgreSQL's `now()`): with 50,000
/// of them at the head of the queue, the claim still reads about a batch of index entries
/// (ties go in index order) instead of reading and sorting the whole tie group.
#[tokio::test]
async fn the_claim_reads_about_a_batch_of_a_tie_group_of_one_created_at() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 50_000, Some(100)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET created_at = '2026-12-01 10:00:00+00';
         UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 997 = 0;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    for storage in [Storage::Retain, Storage::Consume] {
        let plan = explain_claim(&mut conn, &t, storage, false, KeyOrder::BestEffort).await;
        let mut scans = Vec::new();
        collect_scans(&plan[0]["Plan"], &mut scans);
        let fresh = scans
            .iter()
            .find(|(_, cond, _)| cond.contains("available_at IS NULL"))
            .expect("fresh range scan");
        assert!(
            fresh.2 <= 200.0,
            "{storage}: the never-retried range read {} of a 50,000-row tie group for a batch of 100",
            fresh.2
        );
        let text = plan.to_string();
        assert!(
            !text.contains("\"Disk\""),
            "{storage}: no sort spilled to disk: {text}"
        );
    }
}

/// A consume pass holds the row locks of its claim to its end: it locks exactly the rows it
/// claims (not a second batch it will not publish), and a second relay's claim steps over
/// them and still fills up.
#[tokio::test]
async fn a_consume_claim_locks_only_what_it_returns_and_a_contended_claim_fills_up() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 300, Some(30)).await;
    // every other row is a ripe retry: both ranges of the claim have more than a batch
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 2 = 0"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let unlocked = format!("SELECT count(*) FROM (SELECT id FROM {t} FOR UPDATE SKIP LOCKED) x");
    let mut first = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    first.begin_pass(&target()).await.unwrap();
    let claimed = first
        .claim(&target(), 100, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(claimed.rows.len(), 100);
    sqlx::raw_sql("BEGIN").execute(&mut conn).await.unwrap();
    let free = count(&mut conn, &unlocked).await;
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    assert_eq!(free, 200, "the pass locks the 100 rows it claimed, no more");
    let mut second = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    second.begin_pass(&target()).await.unwrap();
    let other = second
        .claim(&target(), 100, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(other.rows.len(), 100, "a contended claim is not short");
    let mine: std::collections::HashSet<_> = claimed.rows.iter().map(|r| r.id).collect();
    assert!(other.rows.iter().all(|r| !mine.contains(&r.id)));
    second.rollback_pass().await;
    first.rollback_pass().await;
}

/// Strict order's claim with a stuck key's backlog: 100,001 rows of key K behind its parked
/// head, then 10,000 due rows of 100 other keys. The claim steps over K's rows without a probe
/// per row and from the strict claim index alone (an index-only scan: no heap fetch per
/// stepped-over row), reads no table whole, and stays within a few thousand buffers (its time
/// is printed, not asserted: speed belongs to the benchmark).
#[tokio::test]
async fn strict_claim_steps_over_a_stuck_keys_backlog_cheaply() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict", "--storage", "consume"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g),
                CASE WHEN g = 0 THEN 'failed' ELSE 'pending' END,
                '2026-12-01 00:00:00+00'::timestamptz + g * interval '1 ms', 'K'
           FROM generate_series(0, 100000) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g),
                'pending', '2026-12-02 00:00:00+00'::timestamptz + g * interval '1 ms', 'o' || (g % 100)
           FROM generate_series(1, 10000) g;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    // As autovacuum leaves a stuck key's old rows: all-visible. VACUUM cannot mark a page so
    // while another test's transaction is older than the rows, so it goes again until it can.
    let pages =
        format!("SELECT relpages - relallvisible FROM pg_class WHERE oid = '{t}'::regclass");
    crate::common::eventually(
        Duration::from_secs(60),
        "VACUUM to mark every page all-visible",
        async || {
            sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
                .execute(&mut conn)
                .await
                .unwrap();
            match sqlx::query_scalar::<_, i32>(&pages)
                .fetch_one(&mut conn)
                .await
                .unwrap()
            {
                0 => Ok(()),
                left => Err(format!("{left} pages not all-visible")),
            }
        },
    )
    .await;
    let plan = explain_claim(&mut conn, &t, Storage::Consume, false, KeyOrder::Strict).await;
    let mut scans = Vec::new();
    collect_scans(&plan[0]["Plan"], &mut scans);
    let top = &plan[0]["Plan"];
    let buffers = top["Shared Hit Blocks"].as_f64().unwrap_or(0.0)
        + top["Shared Read Blocks"].as_f64().unwrap_or(0.0);
    println!(
        "strict claim over a 100,001-row stuck key: {} ms, {buffers} buffers, scans {scans:?}",
        plan[0]["Execution Time"]
    );
    assert!(
        scans.iter().all(|(node, _, _)| node != "Seq Scan"),
        "{scans:?}"
    );
    let stepped = scans
        .iter()
        .find(|(_, _, rows)| *rows > 100_000.0)
        .expect("one scan steps over the backlog");
    assert_eq!(
        stepped.0, "Index Only Scan",
        "the backlog is stepped over from the index: {scans:?}"
    );
    let fetches = heap_fetches(top);
    assert!(
        fetches < 1_000.0,
        "{fetches} heap fetches: the stuck key's rows were read from the table"
    );
    let loops = max_subplan_loops(top);
    assert!(
        loops <= 200,
        "a subquery ran {loops} times: a probe per scanned row instead of one anti-join"
    );
    assert!(buffers < 20_000.0, "the claim touched {buffers} buffers");
    let jit = plan[0]["JIT"]["Timing"]["Total"].as_f64().unwrap_or(0.0);
    println!("of which JIT compilation: {jit} ms");
    assert_eq!(
        top["Actual Rows"].as_f64(),
        Some(100.0),
        "a full batch of the other keys"
    );
}

/// Strict order's claim goes out as a call of its PL/pgSQL function once `migrate` has added it
/// (planned once per server connection, even behind a transaction pooler), and as its SQL
/// before: the same rows in the same order either way.
#[tokio::test]
async fn the_strict_claim_calls_its_function_once_migrate_adds_it_and_sends_its_sql_before() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 30, Some(3)).await;
    let claim = async |s: &mut PgStore<'static>| {
        s.begin_pass(&target()).await.unwrap();
        let c = s.claim(&target(), 10, chrono::Utc::now()).await.unwrap();
        s.rollback_pass().await;
        c.rows.iter().map(|r| r.id).collect::<Vec<_>>()
    };
    let mut before = store(&schema, Storage::Consume, KeyOrder::Strict).await;
    assert!(!before.claims_by_function(None).unwrap());
    let sent_as_sql = claim(&mut before).await;
    assert_eq!(sent_as_sql.len(), 10);
    let strict = ["--storage", "consume", "--key-order", "strict"];
    let r = ob(["migrate", "--check"]).args(strict).pg(&t).run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout
            .contains("missing: create strict order's claim function"),
        "{r:?}"
    );
    migrate(&schema, &strict).await;
    ob(["migrate", "--check"]).args(strict).pg(&t).code(OK);
    let mut after = store(&schema, Storage::Consume, KeyOrder::Strict).await;
    assert!(after.claims_by_function(None).unwrap());
    assert_eq!(claim(&mut after).await, sent_as_sql);
    // a relay whose claim is another (retain here) finds no function of its own: its SQL goes
    let mut retain = store(&schema, Storage::Retain, KeyOrder::Strict).await;
    assert!(!retain.claims_by_function(None).unwrap());
    // and so does a role that may not execute it
    let role = format!("{}_relay", schema.name);
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
         GRANT USAGE ON SCHEMA {s} TO {role}; GRANT SELECT, UPDATE, DELETE ON {t} TO {role};
         REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA {s} FROM PUBLIC",
        s = schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let url = pg_url().replacen("postgres@", &format!("{role}@"), 1);
    let url = outboxctl::dburl::DatabaseUrl::parse(&url).unwrap();
    let opts = store_options(&schema, Storage::Consume, KeyOrder::Strict);
    let mut limited = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    assert!(!limited.claims_by_function(None).unwrap());
    assert_eq!(claim(&mut limited).await, sent_as_sql);
    drop(limited);
    sqlx::raw_sql(&format!("DROP OWNED BY {role}; DROP ROLE {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
}

/// A claim function dropped (or no longer executable) under a running relay: the failed call
/// gives way to the claim's SQL in the same pass, so the relay goes on without a restart.
#[tokio::test]
async fn a_claim_whose_function_went_away_sends_its_sql_in_the_same_pass() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let t = schema.rel("outbox");
    for storage in [Storage::Retain, Storage::Consume] {
        let word = if storage == Storage::Consume {
            "consume"
        } else {
            "retain"
        };
        migrate(&schema, &["--storage", word, "--key-order", "strict"]).await;
        sqlx::raw_sql(&format!("DELETE FROM {t}"))
            .execute(&mut conn)
            .await
            .unwrap();
        stage(&mut conn, &t, "orders", 30, Some(3)).await;
        let mut relay = store(&schema, storage, KeyOrder::Strict).await;
        assert!(relay.claims_by_function(None).unwrap(), "{word}");
        // the relay's own function, as the library names it
        let opts = store_options(&schema, storage, KeyOrder::Strict);
        let f = outboxctl::store::postgres::sql::claim_function(&opts).unwrap();
        sqlx::raw_sql(&format!("DROP FUNCTION {}({})", f.name, f.arguments))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{word}: dropping {}: {e}", f.name));
        relay.begin_pass(&target()).await.unwrap();
        let claimed = relay
            .claim(&target(), 10, chrono::Utc::now())
            .await
            .unwrap_or_else(|e| panic!("{word}: the claim failed with its function gone: {e}"));
        assert_eq!(claimed.rows.len(), 10, "{word}");
        let ids: Vec<uuid::Uuid> = claimed.rows.iter().map(|r| r.id).collect();
        relay
            .mark_published(&target(), &ids, chrono::Utc::now())
            .await
            .unwrap();
        relay.commit_pass().await.unwrap();
        assert!(!relay.claims_by_function(None).unwrap(), "{word}");
        let left: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM {t} WHERE status = 'pending'"
        ))
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(left, 20, "{word}: the pass delivered its 10 rows");
    }
}

/// A function is not called by its name alone: one made first by another role, or edited by
/// hand, is not outboxctl's as written, so the relay sends the claim's SQL, `doctor` warns,
/// `migrate --check` fails and `migrate` makes it again.
#[tokio::test]
async fn a_claim_function_that_is_not_outboxctls_as_written_is_not_called() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let strict = ["--storage", "consume", "--key-order", "strict"];
    let t = schema.rel("outbox");
    migrate(&schema, &["--storage", "consume"]).await;
    let opts = store_options(&schema, Storage::Consume, KeyOrder::Strict);
    let f = outboxctl::store::postgres::sql::claim_function(&opts).unwrap();
    let role = format!("{}_other", schema.name);
    // another role, allowed to create in the schema, makes the function first, body and all
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role};
         GRANT USAGE, CREATE ON SCHEMA {s} TO {role}; GRANT SELECT, UPDATE, DELETE ON {t} TO {role};
         SET ROLE {role}; {ddl}; RESET ROLE;",
        s = schema.name,
        ddl = f.ddl
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let by_function = async || {
        let mut relay = store(&schema, Storage::Consume, KeyOrder::Strict).await;
        relay.claims_by_function(None).unwrap()
    };
    let doctor_says = || {
        let r = ob(["doctor", "--format", "json"]).args(strict).pg(&t).run();
        let v: serde_json::Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        crate::common::doctor_check(&v, "claim function").clone()
    };
    let untrusted = |what: &str| {
        let c = doctor_says();
        assert_eq!(c["level"], "warn", "{what}: {c}");
        assert!(
            c["detail"]
                .as_str()
                .unwrap()
                .contains("not outboxctl's as written"),
            "{what}: {c}"
        );
        let r = ob(["migrate", "--check"]).args(strict).pg(&t).run();
        assert_eq!(r.code, CHECK_FAILED, "{what}: {r:?}");
        assert!(
            r.stdout.contains(
                "missing: replace a function not outboxctl's with strict order's claim function"
            ),
            "{what}: {r:?}"
        );
    };
    assert!(!by_function().await);
    untrusted("owned by another role");
    migrate(&schema, &strict).await;
    assert!(by_function().await);
    assert_eq!(doctor_says()["level"], "ok");
    // edited by hand: the same name and arguments, another body
    let edited = f
        .ddl
        .replacen("RETURN QUERY", "PERFORM 1;\nRETURN QUERY", 1);
    assert_ne!(edited, f.ddl);
    sqlx::raw_sql(&edited).execute(&mut conn).await.unwrap();
    assert!(!by_function().await);
    untrusted("edited by hand");
    migrate(&schema, &strict).await;
    assert!(by_function().await);
    sqlx::raw_sql(&format!("DROP OWNED BY {role}; DROP ROLE {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
}

/// A relay that started before `migrate` added its claim function takes it up between passes,
/// without a reconnect, and claims the same rows through it.
#[tokio::test]
async fn a_running_relay_takes_up_the_claim_function_migrate_adds() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 30, Some(3)).await;
    let mut relay = store(&schema, Storage::Consume, KeyOrder::Strict)
        .await
        .reread_functions_every(Duration::ZERO);
    let mut claim = async || {
        relay.begin_pass(&target()).await.unwrap();
        let c = relay
            .claim(&target(), 10, chrono::Utc::now())
            .await
            .unwrap();
        relay.rollback_pass().await;
        let ids: Vec<uuid::Uuid> = c.rows.iter().map(|r| r.id).collect();
        (ids, relay.claims_by_function(None).unwrap())
    };
    let (before, by_function) = claim().await;
    assert!(!by_function);
    assert_eq!(before.len(), 10);
    migrate(&schema, &["--storage", "consume", "--key-order", "strict"]).await;
    let (after, by_function) = claim().await;
    assert!(by_function, "the relay did not take up the function");
    assert_eq!(after, before);
    // by default it asks once a minute: a store just opened before migrate waits
    drop(relay);
    let (schema, mut conn) = PgSchema::new(&format!("{}_waits", test_name!())).await;
    migrate(&schema, &["--storage", "consume"]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 30, Some(3)).await;
    let mut waiting = store(&schema, Storage::Consume, KeyOrder::Strict).await;
    migrate(&schema, &["--storage", "consume", "--key-order", "strict"]).await;
    waiting.begin_pass(&target()).await.unwrap();
    waiting
        .claim(&target(), 10, chrono::Utc::now())
        .await
        .unwrap();
    waiting.rollback_pass().await;
    assert!(!waiting.claims_by_function(None).unwrap());
}

/// `migrate` run by a role that is neither a superuser nor a member of the table's owner does
/// not make the claim function (the relay would not trust one it owned, so every migrate would
/// make it again): it names the problem, exits 1 and makes nothing; the owner's migrate makes it.
#[tokio::test]
async fn migrate_by_a_role_whose_function_would_not_be_trusted_names_the_problem() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let strict = ["--storage", "consume", "--key-order", "strict"];
    let t = schema.rel("outbox");
    // the strict indexes are the owner's to make; only the function is left for the role
    migrate(&schema, &strict).await;
    let opts = store_options(&schema, Storage::Consume, KeyOrder::Strict);
    let f = outboxctl::store::postgres::sql::claim_function(&opts).unwrap();
    sqlx::raw_sql(&format!("DROP FUNCTION {}({})", f.name, f.arguments))
        .execute(&mut conn)
        .await
        .unwrap();
    let role = format!("{}_mig", schema.name);
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
         GRANT USAGE, CREATE ON SCHEMA {s} TO {role}; GRANT SELECT ON {t} TO {role}",
        s = schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let url = pg_url().replacen("postgres@", &format!("{role}@"), 1);
    let functions = async |conn: &mut sqlx::PgConnection| -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace")
            .bind(&schema.name)
            .fetch_one(conn)
            .await
            .unwrap()
    };
    for args in [&["migrate"][..], &["migrate", "--check"]] {
        let r = ob(args)
            .args(strict)
            .args(["--database-url", &url, "--relation", &t])
            .run();
        assert_eq!(r.code, CHECK_FAILED, "{r:?}");
        assert!(
            r.stdout.contains(&format!(
                "strict order's claim function is missing: migrate's role {role} is neither a superuser nor a member of postgres"
            )),
            "{r:?}"
        );
        assert!(
            r.stderr.contains("1 problem(s) migrate cannot fix"),
            "{r:?}"
        );
        assert_eq!(functions(&mut conn).await, 0, "{args:?} made a function");
    }
    migrate(&schema, &strict).await;
    assert_eq!(functions(&mut conn).await, 1);
    let mut relay = store(&schema, Storage::Consume, KeyOrder::Strict).await;
    assert!(relay.claims_by_function(None).unwrap());
    sqlx::raw_sql(&format!("DROP OWNED BY {role}; DROP ROLE {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
}
