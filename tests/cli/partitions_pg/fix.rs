//! `partitions check --fix` (and its `--dry-run`, and `add-ahead --dry-run`): rows moved out of the default partition
//! without losing any, by column name, while rows keep arriving, and a fix cut short.

use super::*;

#[tokio::test]
async fn check_finds_rows_in_default_and_fix_moves_them_without_losing_any() {
    let (schema, mut conn, log) = log_with("partitions_check_fix").await;
    let r = parts(&schema, &log, &["check", "-q"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.is_empty() && r.stderr.is_empty(),
        "silent on success with -q: {r:?}"
    );
    let r = parts(&schema, &log, &["check"]);
    assert!(r.stdout.starts_with("ok:"), "{r:?}");
    // rows for days nobody added land in the default partition
    for ago in [3u64, 2, 2] {
        let d = today() - Days::new(ago);
        crate::common::log_delivery(&mut conn, &log, None, at(d, 13)).await;
    }
    let total_before = count(&mut conn, &format!("SELECT count(*) FROM {log}")).await;
    let r = parts(&schema, &log, &["check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("default partition holds 3 row(s)"),
        "{r:?}"
    );
    assert!(
        r.stderr
            .contains("error: partitions check: 1 problem(s) in"),
        "one line sums it up: {r:?}"
    );
    // --dry-run says what --fix would move and add, and changes nothing (the problem stands)
    let before = bounds(&mut conn, &log).await;
    let day = |ago: u64| today() - Days::new(ago);
    let r = parts(&schema, &log, &["check", "--fix", "--dry-run"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    for (ago, rows) in [(3, 1), (2, 2)] {
        let line = format!("would move {rows} row(s) of {} from ", day(ago));
        assert!(r.stdout.contains(&line), "{line}: {r:?}");
    }
    let gap = format!("would add: partition for {} (a gap)", day(1));
    assert!(
        r.stdout.contains(&gap),
        "the day between the moved and today: {r:?}"
    );
    // -q: only what is wrong, not each step (they were printed whatever -q said)
    let r = parts(&schema, &log, &["check", "--fix", "--dry-run", "-q"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(!r.stdout.contains("would move"), "{r:?}");
    let r = parts(
        &schema,
        &log,
        &["check", "--fix", "--dry-run", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let steps: Vec<&str> = (v["planned"].as_array().unwrap().iter())
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["moved", "moved", "gap"], "{v}");
    assert_eq!(v["moved"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(bounds(&mut conn, &log).await, before, "a dry run attached");
    let in_default = count(&mut conn, &format!("SELECT count(*) FROM {log}_default")).await;
    assert_eq!(in_default, 3, "a dry run moved rows");
    let r = parts(&schema, &log, &["check", "--dry-run"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("--fix"), "{r:?}");
    // add-ahead does not attach a day blindly over rows in the default
    let r = parts(&schema, &log, &["check", "--fix", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["moved"].as_array().unwrap().len(), 2);
    let fixed: Vec<&str> = (v["fixed"].as_array().unwrap().iter())
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        fixed,
        ["moved", "moved", "gap"],
        "every step the fix took: {v}"
    );
    let total_after = count(&mut conn, &format!("SELECT count(*) FROM {log}")).await;
    assert_eq!(total_after, total_before, "no row lost");
    let in_default = count(&mut conn, &format!("SELECT count(*) FROM {log}_default")).await;
    assert_eq!(in_default, 0);
    let d2 = today() - Days::new(2);
    let n: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {}_{}",
        log,
        d2.format("%Y%m%d")
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(n, 2);
    assert!(bounds(&mut conn, &log).await.contains(&(
        format!("outbox_delivered_{}", d2.format("%Y%m%d")),
        expected_bound(d2)
    )));
    let r = parts(&schema, &log, &["check", "--min-ahead", "20"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("only 8 day(s)"), "{r:?}");
    // the command it names is the one that mends it
    let fix = "run `outboxctl partitions add-ahead --days 19`";
    assert!(r.stdout.contains(fix), "{r:?}");
    let r = parts(&schema, &log, &["add-ahead", "--days", "19"]);
    assert_eq!(r.code, OK, "{r:?}");
    let r = parts(&schema, &log, &["check", "--min-ahead", "20"]);
    assert_eq!(r.code, OK, "{r:?}");
}

/// Moving rows names the columns: a default partition attached with another column order
/// (two UUID columns swapped) keeps each value in its column. Many rows move in batches while
/// a writer keeps adding rows of that day to the default partition: none is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fix_moves_rows_by_column_name_in_batches_while_rows_keep_arriving() {
    let (schema, mut conn, log) = log_with("partitions_fix_columns").await;
    let default = format!("{log}_default");
    sqlx::raw_sql(&format!(
        "ALTER TABLE {log} DETACH PARTITION {default};
         DROP TABLE {default};
         CREATE TABLE {default} (id uuid NOT NULL, outbox_route text NOT NULL, tenant_id uuid, event_id uuid NOT NULL, published_at timestamptz NOT NULL);
         ALTER TABLE {log} ATTACH PARTITION {default} DEFAULT;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let d = today() - Days::new(4);
    let tenant = "0190c4e2-8a6c-7e4a-9b1e-00000000000a";
    sqlx::query(&format!(
        "INSERT INTO {log} (id, outbox_route, event_id, tenant_id, published_at)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), $2::uuid, $1 FROM generate_series(1, 25000)"
    ))
    .bind(at(d, 5))
    .bind(tenant)
    .execute(&mut conn)
    .await
    .unwrap();
    // a relay keeps logging rows of that day while the move runs
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = tokio::spawn({
        let (stop, log) = (stop.clone(), log.clone());
        async move {
            let mut c = crate::common::pg().await;
            let mut n = 0i64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let r = sqlx::query(&format!(
                    "INSERT INTO {log} (id, outbox_route, event_id, tenant_id, published_at) VALUES (gen_random_uuid(), 'orders', gen_random_uuid(), $2::uuid, $1)"
                ))
                .bind(at(d, 6))
                .bind(tenant)
                .execute(&mut c)
                .await;
                match r {
                    Ok(_) => n += 1,
                    // an insert routed to the default partition that waited for the final
                    // step fails once the day is attached (PostgreSQL re-checks the partition
                    // constraint), as a relay's pass would, and is retried as it would be
                    Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("23514") => {}
                    Err(e) => panic!("{e}"),
                }
            }
            n
        }
    });
    let r = ob(["partitions", "check", "--fix"])
        .pg(&schema.rel("outbox"))
        .args(["--storage", "consume", "--delivery-log", &log])
        .run_async()
        .await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writer.await.unwrap();
    assert_eq!(r.code, OK, "{r:?}");
    let part = format!("{log}_{}", d.format("%Y%m%d"));
    let (rows, tenants, events): (i64, i64, i64) = sqlx::query_as(&format!(
        "SELECT count(*), count(*) FILTER (WHERE tenant_id = '{tenant}'), count(DISTINCT event_id) FROM {part}"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    let left = count(&mut conn, &format!("SELECT count(*) FROM ONLY {default}")).await;
    // rows written after the day was attached went to it directly
    assert_eq!(left, 0);
    assert_eq!(rows, 25000 + written, "every row, moved or written since");
    assert_eq!(
        (tenants, events),
        (rows, rows),
        "each value in its own column"
    );
}

/// A fix whose last step gives up (a relay's open transaction holds the default partition)
/// leaves the day's rows in a table of their own that is not attached: `check` says so
/// instead of ok, and the next `check --fix` attaches it; `add-ahead` attaches such a table
/// of a day ahead instead of failing on "already exists".
#[tokio::test]
async fn a_fix_cut_short_is_found_and_finished_by_the_next_one() {
    let (schema, mut conn, log) = log_with("partitions_fix_cut_short").await;
    let d = today() - Days::new(3);
    sqlx::query(&format!(
        "INSERT INTO {log} (id, outbox_route, event_id, published_at)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), $1 FROM generate_series(1, 5)"
    ))
    .bind(at(d, 7))
    .execute(&mut conn)
    .await
    .unwrap();
    let in_log =
        async |conn: &mut PgConnection| count(conn, &format!("SELECT count(*) FROM {log}")).await;
    assert_eq!(in_log(&mut conn).await, 5);
    // a relay's pass, its insert into the default partition not yet committed
    let mut relay = crate::common::pg().await;
    sqlx::raw_sql(&format!(
        "BEGIN; LOCK TABLE {log}_default IN ROW EXCLUSIVE MODE"
    ))
    .execute(&mut relay)
    .await
    .unwrap();
    let fix = ["check", "--fix", "--lock-timeout", "50ms", "--retries", "0"];
    let r = parts(&schema, &log, &fix);
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("run it again to finish"), "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut relay).await.unwrap();
    let part = format!("outbox_delivered_{}", d.format("%Y%m%d"));
    assert_eq!(
        in_log(&mut conn).await,
        0,
        "the moved rows are outside the log"
    );
    // the log's index was built with the day's table, not by ATTACH under the default's lock
    let built = format!(
        "SELECT count(*) FROM pg_indexes WHERE schemaname = '{}' AND tablename = '{part}' AND indexdef LIKE '%(event_id)'",
        schema.name
    );
    assert_eq!(
        count(&mut conn, &built).await,
        1,
        "the day's index is there before ATTACH"
    );
    let r = parts(&schema, &log, &["check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout
            .contains(&format!("{part} is a day's table that is not attached")),
        "{r:?}"
    );
    let r = parts(&schema, &log, &fix);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(in_log(&mut conn).await, 5, "every row is back in the log");
    let helper = "SELECT count(*) FROM pg_constraint WHERE conname = 'outboxctl_day_bound'";
    assert_eq!(
        count(&mut conn, helper).await,
        0,
        "the CHECK that spared ATTACH its scan is gone"
    );
    assert!(
        bounds(&mut conn, &log)
            .await
            .contains(&(part, expected_bound(d))),
        "the day is attached"
    );
    // a day ahead whose table exists unattached is attached, not created again
    let ahead = today() + Days::new(9);
    let table = format!("{log}_{}", ahead.format("%Y%m%d"));
    sqlx::raw_sql(&format!(
        "CREATE TABLE {table} (LIKE {log} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = parts(&schema, &log, &["add-ahead", "--days", "10"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        bounds(&mut conn, &log)
            .await
            .iter()
            .any(|(_, b)| *b == expected_bound(ahead)),
        "{r:?}"
    );
}

/// A hand-made partition over half of a day in a gap: `--fix` cannot add that day (it would
/// overlap), so it leaves it, adds the whole days after it, and the gap stays a problem. Before,
/// the overlap error ended the fix.
#[tokio::test]
async fn fix_leaves_a_gap_day_a_hand_made_partition_half_covers_and_fills_the_rest() {
    let (schema, mut conn, log) = log_with("partitions_fix_half_day").await;
    let d3 = today() - Days::new(3);
    sqlx::raw_sql(&format!(
        "CREATE TABLE {log}_hand PARTITION OF {log} FOR VALUES FROM ('{d3} 00:00:00+00') TO ('{d3} 12:00:00+00')"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = parts(&schema, &log, &["check", "--fix", "--dry-run"]);
    assert!(!r.stdout.contains(&format!("partition for {d3}")), "{r:?}");
    let r = parts(&schema, &log, &["check", "--fix"]);
    assert_eq!(r.code, CHECK_FAILED, "the half day stays a gap: {r:?}");
    assert!(!r.stdout.contains(&format!("partition for {d3}")), "{r:?}");
    let now = bounds(&mut conn, &log).await;
    for ago in [2, 1] {
        let day = today() - Days::new(ago);
        let added = format!("added: partition for {day} (a gap)");
        assert!(r.stdout.contains(&added), "{added}: {r:?}");
        assert!(
            now.iter().any(|(_, b)| *b == expected_bound(day)),
            "{now:?}"
        );
    }
}

/// `add-ahead --dry-run` says which days it would attach (text and JSON) and attaches none;
/// the run after it attaches them.
#[tokio::test]
async fn add_ahead_dry_run_says_which_days_and_adds_none() {
    let (schema, mut conn, log) = log_with(test_name!()).await;
    let before = bounds(&mut conn, &log).await;
    let (ninth, tenth) = (today() + Days::new(8), today() + Days::new(9));
    let name = |d: NaiveDate| format!("outbox_delivered_{}", d.format("%Y%m%d"));
    let r = parts(&schema, &log, &["add-ahead", "--days", "9", "--dry-run"]);
    assert_eq!(r.code, OK, "{r:?}");
    for d in [ninth, tenth] {
        let line = format!("would add: {} for {d}", name(d));
        assert!(r.stdout.contains(&line), "{line}: {r:?}");
    }
    let json = parts(
        &schema,
        &log,
        &["add-ahead", "--days", "9", "--dry-run", "--format", "json"],
    );
    let v = json.json();
    assert_eq!(
        (v["dry_run"].clone(), v["added"].clone()),
        (true.into(), 2.into()),
        "{v}"
    );
    let would: Vec<&serde_json::Value> = (v["days"].as_array().unwrap().iter())
        .filter(|d| d["result"] == "would_add")
        .collect();
    assert_eq!(would.len(), 2, "each day to add, as JSON names it: {v}");
    assert_eq!(bounds(&mut conn, &log).await, before, "nothing attached");
    let r = parts(&schema, &log, &["add-ahead", "--days", "9"]);
    assert!(
        r.stdout.contains(&format!("added: {}", name(tenth))),
        "{r:?}"
    );
    assert_eq!(bounds(&mut conn, &log).await.len(), before.len() + 2);
}

/// Commands that change things while they print: a stdout whose reader quit (`… | head -1`)
/// takes no more output, and the work goes on to its end and its exit code. `migrate` applied
/// a step or two and `partitions check --fix` moved one day, then exited 0 (a deploy hook read
/// a half-migrated schema as done).
#[tokio::test]
async fn a_closed_stdout_stops_the_printing_not_the_work() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let t = schema.rel("outbox");
    let log = schema.rel("deliveries");
    let consume = [
        "--storage",
        "consume",
        "--delivery-log",
        &log,
        "--hlc-ordering",
    ];
    let r = ob(["migrate"])
        .pg(&t)
        .args(consume)
        .run_with_stdout_closed();
    assert_eq!(r.code, OK, "{r:?}");
    let check = ob(["migrate", "--check"]).pg(&t).args(consume).run();
    assert_eq!(check.code, OK, "every step applied: {check:?}");
    for ago in [4u64, 3, 3, 2] {
        let d = today() - Days::new(ago);
        crate::common::log_delivery(&mut conn, &log, None, at(d, 13)).await;
    }
    let r = ob(["partitions", "check", "--fix"])
        .pg(&t)
        .args(["--storage", "consume", "--delivery-log", &log])
        .run_with_stdout_closed();
    assert_eq!(r.code, OK, "{r:?}");
    let in_default = count(&mut conn, &format!("SELECT count(*) FROM {log}_default")).await;
    assert_eq!(in_default, 0, "every day moved");
    assert_eq!(parts(&schema, &log, &["check"]).code, OK);
}

/// A day's table left unattached that holds a row of another day (made by hand, or filled by
/// mistake) is skipped by `add-ahead` with what is wrong with it, in its dry run too: it was
/// blamed on the default partition (which was empty), with a pointer to `check --fix`, and the
/// dry run said it would add the day.
#[tokio::test]
async fn add_ahead_names_a_days_table_that_holds_rows_of_other_days() {
    let (schema, mut conn, log) = log_with(test_name!()).await;
    let d = today() + Days::new(9);
    let table = format!("{log}_{}", d.format("%Y%m%d"));
    let made =
        format!("CREATE TABLE {table} (LIKE {log} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
    sqlx::raw_sql(&made).execute(&mut conn).await.unwrap();
    crate::common::log_delivery(&mut conn, &table, None, at(d + Days::new(4), 1)).await;
    let said = format!("skipped: {d}: {table}, there unattached, holds rows outside this day");
    for dry in [&["--dry-run"][..], &[]] {
        let r = parts(
            &schema,
            &log,
            &[&["add-ahead", "--days", "10"][..], dry].concat(),
        );
        assert_eq!(r.code, CHECK_FAILED, "{dry:?}: {r:?}");
        assert!(r.stdout.contains(&said), "{dry:?}: {r:?}");
        assert!(
            !r.stdout.contains("default partition holds"),
            "{dry:?}: {r:?}"
        );
    }
    let attached = format!("SELECT count(*) FROM pg_inherits WHERE inhrelid = '{table}'::regclass");
    assert_eq!(count(&mut conn, &attached).await, 0, "left unattached");
    // with the row moved out, the day is attached
    sqlx::raw_sql(&format!("DELETE FROM {table}"))
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        parts(&schema, &log, &["add-ahead", "--days", "10"]).code,
        OK
    );
    assert_eq!(count(&mut conn, &attached).await, 1);
}
