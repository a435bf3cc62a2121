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
