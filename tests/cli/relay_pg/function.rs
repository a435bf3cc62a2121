//! The claim's function (`migrate` adds it for an outbox of one table): called once there, as
//! outboxctl writes it and by a role that may, claiming what the claim's SQL claims; the SQL
//! otherwise (and always with `prepared_statements`), and again at once when a call fails as not
//! fitting the database.

use super::*;

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
        r.stdout.contains("missing: create the claim function"),
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
    crate::common::drop_role(&mut conn, &role).await;
}

/// With `prepared_statements` the relay calls neither function where `migrate` added both: its
/// claim and marks go as named statements, planned once per connection and faster sent as they
/// are than through PL/pgSQL. It claims what a relay calling them claims, and `doctor` counts
/// a function it does not call as fine, there or not.
#[tokio::test]
async fn with_prepared_statements_the_pass_sends_its_statements_not_their_functions() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "retain"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 30, Some(3)).await;
    let mut calling = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    assert!(calling.claims_by_function(None).unwrap());
    assert!(calling.marks_by_function(None).unwrap());
    let mut opts = store_options(&schema, Storage::Retain, KeyOrder::BestEffort);
    opts.prepared_statements = true;
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    let mut named = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    assert!(!named.claims_by_function(None).unwrap());
    assert!(!named.marks_by_function(None).unwrap());
    // ten rows each, one after the other: each pass claims the oldest ten left and marks them
    for (who, s) in [("calling", &mut calling), ("named", &mut named)] {
        let oldest: Vec<uuid::Uuid> = sqlx::query_scalar(&format!(
            "SELECT id FROM {t} WHERE status = 'pending' ORDER BY created_at LIMIT 10"
        ))
        .fetch_all(&mut conn)
        .await
        .unwrap();
        s.begin_pass(&target()).await.unwrap();
        let claimed = s.claim(&target(), 10, chrono::Utc::now()).await.unwrap();
        let ids: Vec<uuid::Uuid> = claimed.rows.iter().map(|r| r.id).collect();
        assert_eq!(ids, oldest, "{who}");
        assert_eq!(
            s.mark_published(&target(), &ids, chrono::Utc::now())
                .await
                .unwrap(),
            10,
            "{who}"
        );
        s.commit_pass().await.unwrap();
    }
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    assert_eq!(count(&mut conn, &published).await, 20);
    // doctor: fine with the functions there, and with them gone
    let cfg = crate::common::config_file(
        test_name!(),
        &format!(
            "database_url: {}\noutbox:\n  relation: {t}\n  storage: retain\nrelay:\n  prepared_statements: true\n  routes:\n    orders:\n      to: \"file:/dev/null\"\n",
            pg_url()
        ),
    );
    let doctor_says = |check: &str| {
        let r = ob(["--config", &cfg, "doctor", "--format", "json"]).run();
        let v: serde_json::Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        crate::common::doctor_check(&v, check).clone()
    };
    for check in ["claim function", "mark function"] {
        let c = doctor_says(check);
        assert_eq!(c["level"], "ok", "{c}");
        assert!(
            c["detail"].as_str().unwrap().contains("named statement"),
            "{c}"
        );
    }
    for f in outboxctl::store::postgres::sql::functions(&store_options(
        &schema,
        Storage::Retain,
        KeyOrder::BestEffort,
    )) {
        drop_function(&mut conn, &f).await;
    }
    assert_eq!(doctor_says("claim function")["level"], "ok");
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
        drop_function(&mut conn, &f).await;
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
        let left = count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending'"),
        )
        .await;
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
            r.stdout
                .contains("missing: replace a function not outboxctl's with the claim function"),
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
    crate::common::drop_role(&mut conn, &role).await;
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
/// make it again): under strict order it names the problem, exits 1 and makes nothing; under
/// best-effort order it leaves the function out with a warning and succeeds; the owner's
/// migrate makes it.
#[tokio::test]
async fn migrate_by_a_role_whose_function_would_not_be_trusted_names_the_problem() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let strict = ["--storage", "consume", "--key-order", "strict"];
    let t = schema.rel("outbox");
    // the strict indexes are the owner's to make; only the function is left for the role
    migrate(&schema, &strict).await;
    let opts = store_options(&schema, Storage::Consume, KeyOrder::Strict);
    let f = outboxctl::store::postgres::sql::claim_function(&opts).unwrap();
    drop_function(&mut conn, &f).await;
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
                "the claim function is missing: migrate's role {role} is neither a superuser nor a member of postgres"
            )),
            "{r:?}"
        );
        assert!(
            r.stderr.contains("1 problem(s) migrate cannot fix"),
            "{r:?}"
        );
        assert_eq!(functions(&mut conn).await, 0, "{args:?} made a function");
    }
    // best-effort order's claim is quick to plan: its function is left out, and nothing fails
    let r = ob(["migrate"])
        .args(["--storage", "consume"])
        .args(["--database-url", &url, "--relation", &t])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains(&format!(
            "warning: the claim function is missing: migrate's role {role} is neither a superuser nor a member of postgres"
        )),
        "says what it left out: {r:?}"
    );
    assert_eq!(
        functions(&mut conn).await,
        0,
        "best-effort migrate made a function"
    );
    migrate(&schema, &strict).await;
    assert_eq!(functions(&mut conn).await, 1);
    let mut relay = store(&schema, Storage::Consume, KeyOrder::Strict).await;
    assert!(relay.claims_by_function(None).unwrap());
    crate::common::drop_role(&mut conn, &role).await;
}

/// Best-effort order's claim goes through its function too once `migrate` has made it, under
/// either storage, and claims exactly what its SQL claims: the same rows in the same order,
/// every ripe retry among them, no row not yet due.
#[tokio::test]
async fn the_best_effort_claim_calls_its_function_and_claims_what_its_sql_claims() {
    for storage in [Storage::Consume, Storage::Retain] {
        let (schema, mut conn) = PgSchema::new(&format!("{}_{storage:?}", test_name!())).await;
        let flag = if storage == Storage::Consume {
            "consume"
        } else {
            "retain"
        };
        migrate(&schema, &["--storage", flag]).await;
        let t = schema.rel("outbox");
        stage(&mut conn, &t, "orders", 40, Some(4)).await;
        sqlx::raw_sql(&format!(
            "UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 7 = 0;
             UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 1 WHERE (payload->>'n')::int % 5 = 0"
        ))
        .execute(&mut conn)
        .await
        .unwrap();
        // claims 15 rows and hands them back: a consume pass rolls back, retain releases them
        let claim = async |s: &mut PgStore<'static>| {
            s.begin_pass(&target()).await.unwrap();
            let at = chrono::Utc::now();
            let c = s.claim(&target(), 15, at).await.unwrap();
            let ids: Vec<uuid::Uuid> = c.rows.iter().map(|r| r.id).collect();
            s.release(&target(), &ids, at).await.unwrap();
            s.rollback_pass().await;
            ids
        };
        let mut by_function = store(&schema, storage, KeyOrder::BestEffort).await;
        assert!(by_function.claims_by_function(None).unwrap(), "{storage:?}");
        let through_function = claim(&mut by_function).await;
        assert_eq!(through_function.len(), 15, "{storage:?}");
        let f = outboxctl::store::postgres::sql::claim_function(&store_options(
            &schema,
            storage,
            KeyOrder::BestEffort,
        ))
        .unwrap();
        drop_function(&mut conn, &f).await;
        let mut by_sql = store(&schema, storage, KeyOrder::BestEffort).await;
        assert!(!by_sql.claims_by_function(None).unwrap(), "{storage:?}");
        assert_eq!(claim(&mut by_sql).await, through_function, "{storage:?}");
        let due = async |conn: &mut sqlx::PgConnection, cond: &str| -> Vec<uuid::Uuid> {
            sqlx::query_scalar(&format!("SELECT id FROM {t} WHERE {cond}"))
                .fetch_all(conn)
                .await
                .unwrap()
        };
        let ripe = due(&mut conn, "available_at <= now()").await;
        let later = due(&mut conn, "available_at > now()").await;
        assert!(!ripe.is_empty() && !later.is_empty());
        assert!(
            ripe.iter().all(|id| through_function.contains(id)),
            "{storage:?}: the ripe retries are taken first"
        );
        assert!(
            !later.iter().any(|id| through_function.contains(id)),
            "{storage:?}: no row before it is due"
        );
        let pending = count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND processing_at IS NULL"),
        )
        .await;
        assert_eq!(pending, 40, "{storage:?}: every row handed back");
    }
}

/// Retain's marks go through their function once `migrate` has made it, each answering with the
/// rows it marked, as the statement's own count does; a mark whose function went away under a
/// running relay gives way to its SQL in the same call.
#[tokio::test]
async fn retain_marks_through_its_function_and_sends_its_sql_once_it_went_away() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "retain"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 20, Some(2)).await;
    let mut s = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    assert!(s.marks_by_function(None).unwrap());
    s.begin_pass(&target()).await.unwrap();
    let claimed = s.claim(&target(), 20, chrono::Utc::now()).await.unwrap();
    let ids: Vec<uuid::Uuid> = claimed.rows.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 20);
    let at = chrono::Utc::now();
    assert_eq!(s.mark_published(&target(), &ids[..8], at).await.unwrap(), 8);
    // rows already marked are not marked again, and the count says so
    assert_eq!(s.mark_published(&target(), &ids[..8], at).await.unwrap(), 0);
    let opts = store_options(&schema, Storage::Retain, KeyOrder::BestEffort);
    let f = outboxctl::store::postgres::sql::mark_function(&opts).unwrap();
    assert!(f.name.name.name().contains("_mark_"), "{}", f.name);
    drop_function(&mut conn, &f).await;
    assert_eq!(
        s.mark_published(&target(), &ids[8..], at).await.unwrap(),
        12
    );
    assert!(!s.marks_by_function(None).unwrap());
    s.commit_pass().await.unwrap();
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published' AND published_at IS NOT NULL AND last_error IS NULL"),
    )
    .await;
    assert_eq!(published, 20);
}

/// `migrate` keeps the functions of the pass made for other settings (or by another version:
/// relays mid-upgrade still call theirs) and names them in a warning; `--prune-functions` drops
/// exactly those, and asks first: shown by `--dry-run`, counted by `--check`, refused without a
/// terminal or `--yes`. The configuration's own functions stay, and so does a function of the
/// user's named like one of outboxctl's.
#[tokio::test]
async fn migrate_prunes_the_functions_of_other_settings_when_asked_and_keeps_its_own() {
    use outboxctl::store::postgres::sql::{claim_function, functions};
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let t = schema.rel("outbox");
    let best = ["--storage", "retain"];
    migrate(&schema, &["--storage", "retain", "--key-order", "strict"]).await;
    migrate(&schema, &best).await;
    let old = claim_function(&store_options(&schema, Storage::Retain, KeyOrder::Strict)).unwrap();
    let ours = functions(&store_options(
        &schema,
        Storage::Retain,
        KeyOrder::BestEffort,
    ));
    assert_eq!(ours.len(), 2, "the claim's and the mark's: {ours:?}");
    let mine = "outbox_claim_0123abcd";
    sqlx::raw_sql(&format!(
        "CREATE FUNCTION {}.{mine}() RETURNS int LANGUAGE plpgsql AS $$BEGIN RETURN 1; END$$",
        schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let names = async |conn: &mut sqlx::PgConnection| -> Vec<String> {
        sqlx::query_scalar(
            "SELECT proname::text FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY 1",
        )
        .bind(&schema.name)
        .fetch_all(conn)
        .await
        .unwrap()
    };
    let before = names(&mut conn).await;
    assert_eq!(before.len(), 4, "{before:?}");

    // migrate for the best-effort relay, with `flags`: its exit code checked, its output
    let migrate_best = |flags: &[&str], code: i32| {
        let r = ob(["migrate"]).args(flags).args(best).pg(&t).run();
        assert_eq!(r.code, code, "{flags:?}: {r:?}");
        r
    };
    let old_name = old.name.plain();
    let cfg = crate::common::config_file(
        test_name!(),
        &format!(
            "database_url: {}\noutbox:\n  relation: {t}\n  storage: retain\nrelay:\n  routes:\n    orders:\n      to: \"file:/dev/null\"\n",
            pg_url()
        ),
    );
    let old_functions = || {
        let r = ob(["--config", &cfg, "doctor", "--format", "json"]).run();
        let v: serde_json::Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        crate::common::doctor_check(&v, "old functions").clone()
    };
    let c = old_functions();
    assert_eq!(c["level"], "warn", "{c}");
    assert_eq!(
        c["detail"],
        format!(
            "1 function(s) of the pass of another version or other settings: {old_name}; once no relay calls them, run outboxctl migrate --prune-functions"
        ),
    );
    let r = migrate_best(&[], OK);
    let warning = format!(
        "warning: 1 function(s) of the pass of another version or other settings: {old_name}; once no relay calls them, `outboxctl migrate --prune-functions` drops them"
    );
    assert!(r.stderr.contains(&warning), "{r:?}");
    let r = migrate_best(&["--prune-functions", "--dry-run"], OK);
    let drop = format!("DROP FUNCTION {}({})", old.name, old.arguments);
    assert!(r.stdout.contains(&drop), "{r:?}");
    assert_eq!(r.stdout.matches("DROP FUNCTION").count(), 1, "{r:?}");
    let r = migrate_best(&["--prune-functions", "--check"], CHECK_FAILED);
    let missing = format!(
        "missing: drop the claim function {old_name}, which this configuration's relay does not call"
    );
    assert!(r.stdout.contains(&missing), "{r:?}");
    let r = migrate_best(&["--prune-functions"], REFUSED);
    let refused = format!(
        "refusing to drop {old_name} (relays still calling one send its SQL instead, slower) without confirmation"
    );
    assert!(r.stderr.contains(&refused), "{r:?}");
    assert_eq!(names(&mut conn).await, before, "a refused prune dropped");

    migrate_best(&["--prune-functions", "--yes"], OK);
    let mut left: Vec<String> = ours.iter().map(|f| f.name.name.name().to_owned()).collect();
    left.push(mine.to_owned());
    left.sort();
    assert_eq!(names(&mut conn).await, left);
    migrate_best(&["--prune-functions", "--check"], OK);
    assert_eq!(old_functions()["level"], "ok");
    let r = migrate_best(&[], OK);
    assert!(!r.stderr.contains("function(s) of the pass"), "{r:?}");
    // the relay still calls its own
    let mut relay = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    assert!(relay.claims_by_function(None).unwrap() && relay.marks_by_function(None).unwrap());
}

/// Drops one of the pass's functions, as the library names it.
async fn drop_function(
    conn: &mut sqlx::PgConnection,
    f: &outboxctl::store::postgres::sql::PassFunction,
) {
    sqlx::raw_sql(&format!("DROP FUNCTION {}({})", f.name, f.arguments))
        .execute(conn)
        .await
        .unwrap_or_else(|e| panic!("dropping {}: {e}", f.name));
}

/// A table whose name leaves no room for its claim function's (50 bytes: `…_claim_<8 hex>`
/// would pass 63) relays through its SQL, and `migrate` and `doctor` say so, with the name's
/// room: both were silent, and `migrate --check` found nothing missing.
#[tokio::test]
async fn a_table_name_with_no_room_for_its_functions_is_said_and_relays_by_its_sql() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = schema.rel(&"w".repeat(50));
    let cfg = crate::common::config_file(test, "outbox:\n  registry: off\n");
    let r = ob(["migrate", "--config", &cfg]).pg(&t).run();
    assert_eq!(r.code, OK, "{r:?}");
    let said = "(50 bytes) leaves no room for its claim function's";
    assert!(
        r.stderr.contains(said) && r.stderr.contains("at most 48 bytes has its functions"),
        "{r:?}"
    );
    let r = ob(["doctor", "--format", "json", "--config", &cfg])
        .pg(&t)
        .run();
    let check = crate::common::doctor_check(&r.json(), "claim function").clone();
    assert_eq!(check["level"], "warn", "{check}");
    assert!(check["detail"].as_str().unwrap().contains(said), "{check}");
    stage(&mut conn, &t, "orders", 3, None).await;
    let r = ob(crate::common::RELAY_TO_NOWHERE)
        .args(["--config", &cfg])
        .pg(&t)
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    assert_eq!(count(&mut conn, &published).await, 3);
}
