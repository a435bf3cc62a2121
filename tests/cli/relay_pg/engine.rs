//! The engine over PgStore with destinations that fail on purpose: retries, parking, deadlines, savepoints, cancellation.

use super::*;

#[tokio::test]
async fn transient_failures_retry_with_grouped_errors_then_succeed() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    // First pass: n=1..3 fail with two different errors, the rest publish.
    let flaky = Flaky::new(|m, _| {
        let n = m
            .payload
            .get()
            .trim_start_matches("{\"n\":")
            .trim_end_matches('}')
            .parse::<i32>()
            .unwrap();
        match n {
            1 | 2 => Some(PublishError::transient("broker busy")),
            3 => Some(PublishError::transient("connection reset")),
            _ => None,
        }
    });
    let mut s = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    let sink = Sink::Publisher(flaky.clone());
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!((report.published, report.retried, report.failed), (3, 3, 0));
    let rows = sqlx::query(&format!("SELECT status, attempts, last_error, available_at > now() AS later FROM {t} WHERE attempts > 0"))
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r.get::<String, _>("status"), "pending");
        assert_eq!(r.get::<i32, _>("attempts"), 1);
        assert!(r.get::<bool, _>("later"));
        assert_eq!(
            r.get::<String, _>("last_error"),
            "broker busy (+1 more)",
            "one group: first error plus the count of others"
        );
    }
    // Not yet due: a pass claims nothing.
    let ok = Flaky::new(|_, _| None);
    let sink = Sink::Publisher(ok.clone());
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert_eq!(report.claimed, 0);
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() - interval '1 ms' WHERE attempts > 0"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert_eq!((report.published, report.retried), (3, 0));
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'published'")
        )
        .await,
        6
    );
    let err: Option<String> = sqlx::query_scalar(&format!("SELECT max(last_error) FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(err, None, "publishing clears last_error");
}

#[tokio::test]
async fn a_permanent_refusal_parks_the_row_at_once() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let flaky = Flaky::new(|_, n| (n == 0).then(|| PublishError::permanent("HTTP 422: bad event")));
    let mut s = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(flaky),
        &settings(Storage::Consume),
        PassOptions::default(),
    )
    .await;
    assert_eq!(
        (report.published, report.failed, report.committed),
        (1, 1, true)
    );
    let row = sqlx::query(&format!("SELECT status, attempts, last_error FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(row.get::<String, _>(0), "failed");
    assert_eq!(row.get::<i32, _>(1), 0, "attempts unchanged");
    assert_eq!(row.get::<String, _>(2), "HTTP 422: bad event");
}

/// A consume outbox of 10 rows, a publisher that takes 300 ms a message, and consume settings
/// that publish one message at a time.
async fn ten_rows_and_a_slow_publisher(
    test: &str,
) -> (PgSchema, PgConnection, String, Arc<Flaky>, RelaySettings) {
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    let mut slow = Flaky::new(|_, _| None);
    Arc::get_mut(&mut slow).unwrap().delay = Duration::from_millis(300);
    let mut settings = settings(Storage::Consume);
    settings.one_at_a_time = true;
    (schema, conn, t, slow, settings)
}

/// A session whose own idle_in_transaction_session_timeout (500 ms, a role's setting) is
/// shorter than the pass's: the pass stops publishing within four fifths of it and commits,
/// where the server used to end the session mid-pass (SQLSTATE 25P03), which read as the
/// database away and came back every pass.
#[tokio::test]
async fn a_session_idle_limit_shorter_than_the_pass_bounds_its_publishing() {
    let (schema, mut conn, t, slow, settings) = ten_rows_and_a_slow_publisher(test_name!()).await;
    let url = format!(
        "{}?options=-c%20idle_in_transaction_session_timeout%3D500",
        pg_url()
    );
    let url = outboxctl::dburl::DatabaseUrl::parse(&url).unwrap();
    let opts = store_options(&schema, Storage::Consume, KeyOrder::BestEffort);
    let mut s = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(slow.clone()),
        &settings,
        PassOptions::default(),
    )
    .await;
    assert!(report.database_away.is_none(), "{report:?}");
    assert!(report.committed, "{report:?}");
    assert!(report.published >= 1 && report.untouched >= 1, "{report:?}");
    let left = count(&mut conn, &format!("SELECT count(*) FROM {t}")).await;
    assert_eq!(
        left,
        10 - report.published as i64,
        "what was published is gone"
    );
}

#[tokio::test]
async fn the_pass_deadline_cancels_a_publish_in_flight_and_leaves_the_rest_untouched() {
    let (schema, mut conn, t, slow, mut settings) =
        ten_rows_and_a_slow_publisher(test_name!()).await;
    settings.pass_deadline = Duration::from_millis(700);
    let mut s = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(slow.clone()),
        &settings,
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(
        (report.published, report.retried, report.untouched),
        (2, 1, 7),
        "{report:?}"
    );
    let err: String = sqlx::query_scalar(&format!("SELECT last_error FROM {t} WHERE attempts = 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(err.starts_with("publish timed out after 0."), "{err}");
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE attempts = 0 AND last_error IS NULL")
        )
        .await,
        7
    );
}

#[tokio::test]
async fn a_pass_inside_the_callers_transaction_is_a_savepoint() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 4, None).await;
    let opts = PgStoreOptions {
        relation: RelationSpec::parse("relation", &t).unwrap(),
        delivery_log: None,
        storage: Storage::Consume,
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::BestEffort,
        pass_statement_timeout: Duration::from_millis(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
        pauses: None,
    };
    let mut caller = crate::common::pg().await;
    for commit in [false, true] {
        use sqlx::Connection;
        let mut tx = caller.begin().await.unwrap();
        let mut s = PgStore::in_transaction(&mut tx, opts.clone()).unwrap();
        let ok = Flaky::new(|_, _| None);
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(ok),
            &settings(Storage::Consume),
            PassOptions::default(),
        )
        .await;
        drop(s);
        assert_eq!(report.published, 4, "{report:?}");
        // no pass timeouts were set: the caller's transaction keeps its own (none)
        let st: String = sqlx::query_scalar("SELECT current_setting('statement_timeout')")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert_eq!(st, "0");
        if commit {
            tx.commit().await.unwrap();
        } else {
            tx.rollback().await.unwrap();
        }
        let left = count(&mut conn, &format!("SELECT count(*) FROM {t}")).await;
        assert_eq!(left, if commit { 0 } else { 4 }, "commit={commit}");
    }
    // a connection without a transaction opened through sqlx is refused
    assert!(PgStore::in_transaction(&mut caller, opts).is_err());
}

#[tokio::test]
async fn ctrl_c_of_a_one_shot_relay_exits_130() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 50_000, None).await;
    let path = out_file(test);
    let child = ob(["relay", "--once", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .args(["--to", &format!("file:{}", path.display())])
        .spawn_piped();
    crate::common::wait_until(Duration::from_secs(30), "some deliveries", || {
        std::fs::metadata(&path)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
    })
    .await;
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A consume pass's opening (`BEGIN`, its timeouts and the claim, sent together) cancelled on
/// the server (`pg_cancel_backend` while the claim waits for a lock another session holds on the
/// table): the pass fails and rolls back, and the next pass on the same connection runs,
/// instead of meeting "current transaction is aborted" forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_cancelled_while_it_opens_leaves_the_connection_usable() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let mut opts = store_options(&schema, Storage::Consume, KeyOrder::BestEffort);
    // the claim waits for the lock until it is cancelled, not for lock_timeout
    opts.pass_statement_timeout = Duration::from_secs(60);
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    let s = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    let pid = s.backend_pid().expect("a direct connection");
    let ok = Flaky::new(|_, _| None);
    let sink = Sink::Publisher(ok.clone());
    // another session holds the table: the pass's claim waits for it
    let mut locker = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE"))
        .execute(&mut locker)
        .await
        .unwrap();
    let first = tokio::spawn({
        let sink = sink.clone();
        async move {
            let mut s = s;
            let report = run_pass(
                &mut s,
                &target(),
                &sink,
                &settings(Storage::Consume),
                PassOptions::default(),
            )
            .await;
            (s, report)
        }
    });
    crate::common::eventually(
        Duration::from_secs(30),
        "the pass's claim waiting on the table",
        async || {
            let waiting: Option<i32> = sqlx::query_scalar(
                "SELECT pid FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'",
            )
            .bind(pid)
            .fetch_optional(&mut conn)
            .await
            .unwrap();
            waiting.ok_or_else(|| "not yet".to_owned())
        },
    )
    .await;
    let cancelled: bool = sqlx::query_scalar("SELECT pg_cancel_backend($1)")
        .bind(pid)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(cancelled);
    let (mut s, report) = first.await.unwrap();
    assert!(!report.committed, "{report:?}");
    let error = report.error.unwrap_or_default();
    assert!(
        error.contains("claiming") && error.contains("cancel"),
        "{error}"
    );
    sqlx::raw_sql("COMMIT").execute(&mut locker).await.unwrap();
    // the same connection runs the next pass
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Consume),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(report.published, 5);
    assert_eq!(s.backend_pid(), Some(pid), "the same connection");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );
}

/// Under retain, a `postgres-table:` destination that refuses a row (a constraint; the database
/// up) gives that row an attempt, as a refused publish, and takes the others. The refused row
/// used to fail the whole pass, its chunk left `processing` with no attempt counted until
/// reclaim, and again after it, for ever. Under strict order its key's later rows wait; at
/// max_attempts it parks.
#[tokio::test]
async fn a_table_destination_refusing_a_row_retries_it_and_takes_the_rest() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    let sink = refusing_sink(&schema, &mut conn).await;
    let state = async |conn: &mut PgConnection| outbox_state(conn, &t).await;
    let refused = Some(REFUSED.to_owned());
    let pass = async |order: KeyOrder| {
        let mut s = store(&schema, Storage::Retain, order).await;
        let mut settings = settings(Storage::Retain);
        settings.key_order = order;
        let sink = Sink::Table(sink.clone());
        run_pass(&mut s, &target(), &sink, &settings, PassOptions::default()).await
    };
    // n = 1..6, keys k1, k0, k1, k0, k1, k0: the table refuses n = 2
    for (order, held) in [
        (KeyOrder::BestEffort, vec![]),
        (KeyOrder::Strict, vec![4, 6]),
    ] {
        sqlx::raw_sql(&format!("TRUNCATE {t}, {sink}"))
            .execute(&mut conn)
            .await
            .unwrap();
        stage(&mut conn, &t, "orders", 6, Some(2)).await;
        let report = pass(order).await;
        assert!(report.committed, "{order:?}: {report:?}");
        assert_eq!(report.retried, 1, "{order:?}: {report:?}");
        assert_eq!(report.published, 5 - held.len(), "{order:?}: {report:?}");
        for (n, status, attempts, error) in state(&mut conn).await {
            let want = match n {
                2 => ("pending", 1, refused.clone()),
                n if held.contains(&n) => ("pending", 0, None),
                _ => ("published", 0, None),
            };
            assert_eq!(
                (status.as_str(), attempts, error),
                want,
                "{order:?}: row {n}"
            );
        }
        let inserted = format!("SELECT count(*) FROM {}", schema.rel("sink"));
        let inserted = count(&mut conn, &inserted).await;
        assert_eq!(inserted, 5 - held.len() as i64, "{order:?}");
    }
    // refused again at its last attempt, it parks
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET attempts = {} - 1, available_at = NULL WHERE attempts = 1",
        settings(Storage::Retain).max_attempts
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let report = pass(KeyOrder::BestEffort).await;
    assert_eq!(report.failed, 1, "{report:?}");
    let parked = state(&mut conn).await;
    assert_eq!(parked[1].1, "failed", "{parked:?}");
}

/// Under retain, a pass that fails after its claim (here its `postgres-table:` destination is
/// not made yet) returns what it claimed to pending, untouched, for the next pass. The rows
/// waited `processing` for `reclaim_stale_after` (5m), and a looping relay stranded another
/// claim with each failed pass; a rerun after the fix found nothing to do and exited 0.
#[tokio::test]
async fn a_retain_pass_that_fails_after_its_claim_releases_its_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let missing =
        outboxctl::target::QualifiedName::parse("sink", &schema.rel("not_made_yet")).unwrap();
    let report = a_failed_retain_pass(&schema, Sink::Table(missing), "does not exist").await;
    assert_eq!((report.claimed, report.untouched), (3, 3), "{report:?}");
    for (n, status, attempts, error) in outbox_state(&mut conn, &t).await {
        assert_eq!(
            (status.as_str(), attempts, error),
            ("pending", 0, None),
            "row {n}"
        );
    }
    let stale = format!("SELECT count(*) FROM {t} WHERE processing_at IS NOT NULL");
    assert_eq!(count(&mut conn, &stale).await, 0);
}

/// ... but what it sent stays as it is: a chunk published whose mark then failed (a trigger
/// refuses it here) is left `processing` for reclaim, not released to go again at once with
/// every backoff; only the chunks never sent go back.
#[tokio::test]
async fn a_retain_pass_whose_mark_fails_releases_only_what_it_never_sent() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 40, None).await;
    sqlx::raw_sql(&format!(
        "CREATE FUNCTION {s}.no_marks() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'marks refused'; END $$;
         CREATE TRIGGER no_marks BEFORE UPDATE ON {t} FOR EACH ROW
           WHEN (NEW.status = 'published') EXECUTE FUNCTION {s}.no_marks();",
        s = schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let sink = Sink::Publisher(Flaky::new(|_, _| None));
    let report = a_failed_retain_pass(&schema, sink, "marks refused").await;
    assert_eq!(
        report.untouched, 8,
        "the second chunk, never sent: {report:?}"
    );
    let state = outbox_state(&mut conn, &t).await;
    for (n, status, attempts, _) in state {
        let want = if n <= 32 { "processing" } else { "pending" };
        assert_eq!((status.as_str(), attempts), (want, 0), "row {n}");
    }
}

/// A release hands back only what the claim made at its time still holds: a row reclaimed
/// and claimed again by another relay meanwhile (its `processing_at` later) stays that
/// relay's.
#[tokio::test]
async fn a_retain_release_leaves_a_row_another_relay_claimed_since() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let mut s = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    let at = chrono::Utc::now();
    let claimed = s.claim(&target(), 10, at).await.unwrap().rows;
    assert_eq!(claimed.len(), 3);
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET processing_at = processing_at + interval '6 minutes' WHERE (payload->>'n')::int = 3"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let ids: Vec<uuid::Uuid> = claimed.iter().map(|r| r.id).collect();
    let released = s.release(&target(), &ids, at).await.unwrap();
    assert_eq!(released, 2);
    let state = outbox_state(&mut conn, &t).await;
    let statuses: Vec<(i32, &str)> = state.iter().map(|r| (r.0, r.1.as_str())).collect();
    assert_eq!(
        statuses,
        [(1, "pending"), (2, "pending"), (3, "processing")]
    );
}

/// One retain pass over `sink` that fails, its error saying `says`: its report.
async fn a_failed_retain_pass(
    schema: &PgSchema,
    sink: Sink,
    says: &str,
) -> outboxctl::relay::engine::PassReport {
    let mut s = store(schema, Storage::Retain, KeyOrder::BestEffort).await;
    let settings = settings(Storage::Retain);
    let report = run_pass(&mut s, &target(), &sink, &settings, PassOptions::default()).await;
    assert!(!report.committed, "{report:?}");
    let error = report.error.as_deref();
    assert!(error.is_some_and(|e| e.contains(says)), "{report:?}");
    report
}

/// A destination table that refuses the row whose payload's `n` is 2 (a check).
async fn refusing_sink(
    schema: &PgSchema,
    conn: &mut PgConnection,
) -> outboxctl::target::QualifiedName {
    let sink = outboxctl::target::QualifiedName::parse("sink", &schema.rel("sink")).unwrap();
    sqlx::raw_sql(&format!(
        "CREATE TABLE {sink} (event_id UUID PRIMARY KEY, outbox_route TEXT NOT NULL, event_type TEXT NOT NULL,
            ordering_key TEXT, tenant_id UUID, payload JSONB NOT NULL, headers JSONB NOT NULL,
            published_at TIMESTAMPTZ NOT NULL, CONSTRAINT no_two CHECK ((payload->>'n')::int <> 2))"
    ))
    .execute(conn)
    .await
    .unwrap();
    sink
}

/// The refused row's `last_error`.
const REFUSED: &str = "inserting into the destination table: new row for relation \"sink\" violates check constraint \"no_two\"";

/// Each outbox row by `n`: status, attempts, last error.
async fn outbox_state(conn: &mut PgConnection, t: &str) -> Vec<(i32, String, i32, Option<String>)> {
    let rows = sqlx::query(&format!(
        "SELECT (payload->>'n')::int, status, attempts, last_error FROM {t} ORDER BY 1"
    ))
    .fetch_all(conn)
    .await
    .unwrap();
    (rows.iter())
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

/// Under consume the same refusal used to roll back the whole pass at its `COMMIT`, and every
/// pass after it claimed the same rows: the route stalled behind one row. Now the pass runs
/// again with each insert in a savepoint: the refused row gets its attempt, the others are
/// inserted and deleted in one transaction (under strict order its key's later rows wait).
/// On the store's own connection (plain and with named statements) and inside a caller's
/// transaction.
#[tokio::test]
async fn under_consume_a_table_destination_refusing_a_row_stalls_nothing() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume", "--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    let sink = refusing_sink(&schema, &mut conn).await;
    let inserted = format!("SELECT count(*) FROM {sink}");
    let mut caller = crate::common::pg().await;
    // n = 1..6, keys k1, k0, k1, k0, k1, k0: the table refuses n = 2
    for (order, prepared, in_caller) in [
        (KeyOrder::BestEffort, false, false),
        (KeyOrder::Strict, true, false),
        (KeyOrder::BestEffort, false, true),
    ] {
        let case = format!("{order:?}, prepared {prepared}, in a caller's transaction {in_caller}");
        let held: &[i32] = if order == KeyOrder::Strict {
            &[4, 6]
        } else {
            &[]
        };
        sqlx::raw_sql(&format!("TRUNCATE {t}, {sink}"))
            .execute(&mut conn)
            .await
            .unwrap();
        stage(&mut conn, &t, "orders", 6, Some(2)).await;
        let mut opts = store_options(&schema, Storage::Consume, order);
        opts.prepared_statements = prepared;
        let mut settings = settings(Storage::Consume);
        settings.key_order = order;
        let table = Sink::Table(sink.clone());
        let report = if in_caller {
            use sqlx::Connection;
            let mut tx = caller.begin().await.unwrap();
            let mut s = PgStore::in_transaction(&mut tx, opts).unwrap();
            let report = run_pass(&mut s, &target(), &table, &settings, Default::default()).await;
            drop(s);
            tx.commit().await.unwrap();
            report
        } else {
            let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
            let mut s = PgStore::connect(&url, Duration::from_secs(5), opts)
                .await
                .unwrap();
            run_pass(&mut s, &target(), &table, &settings, Default::default()).await
        };
        assert!(report.committed, "{case}: {report:?}");
        assert_eq!(report.retried, 1, "{case}: {report:?}");
        assert_eq!(report.published, 5 - held.len(), "{case}: {report:?}");
        let left = outbox_state(&mut conn, &t).await;
        let mut want = vec![(2, "pending".to_owned(), 1, Some(REFUSED.to_owned()))];
        want.extend(held.iter().map(|&n| (n, "pending".to_owned(), 0, None)));
        assert_eq!(left, want, "{case}: the rest were delivered and deleted");
        let inserted = count(&mut conn, &inserted).await;
        assert_eq!(inserted, 5 - held.len() as i64, "{case}");
    }
}
