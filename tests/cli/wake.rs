//! `relay.wake: notify`: a staged row wakes looping relays at once (their interval is an hour
//! here, so polling cannot be what delivers), across a lost listener connection, behind
//! pgbouncer with `wake_url`, and on MongoDB through a change stream.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use crate::common::mongo::MongoDb;
use crate::common::own_server::{spawn_loop_relay, wait_log, wait_published};
use crate::common::{
    OK, PgSchema, config_file, emit_events, migrate, ob, out_file, stage, wait_until,
};
use crate::pgbouncer::PgBouncer;

/// A table name of the test's own: its `NOTIFY` channel (`<table>_wake`) is then its own too.
fn own_table(schema: &PgSchema, test: &str) -> String {
    let suffix = &crate::common::unique_name(test)[2..10];
    schema.rel(&format!("o{suffix}"))
}

fn wake_config(test: &str, to: &Path, extra: &str) -> String {
    config_file(
        test,
        &format!(
            "relay:\n  interval: 1h\n  wake: notify\n{extra}  routes:\n    orders:\n      to: file:{}\n",
            to.display()
        ),
    )
}

fn event_ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["event_id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn staged_rows_wake_every_looping_relay_at_once_even_after_the_listener_is_killed() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = own_table(&schema, test);
    let out = out_file(test);
    let cfg = wake_config(test, &out, "");
    let applied = ob(["migrate"]).pg(&t).config(&cfg).code(OK);
    let table = t.split('.').nth(1).unwrap().to_owned();
    // the summary names everything migrate created, the wake function and trigger too
    let summary = applied
        .stdout
        .lines()
        .chain(applied.stderr.lines())
        .find(|l| l.contains("create table"))
        .unwrap_or_else(|| panic!("no summary: {applied:?}"))
        .replace(&schema.name, "SCHEMA")
        .replace(&table, "TABLE");
    let summary = summary.split(" (").next().unwrap_or_default().to_owned();
    insta::assert_snapshot!("migrate_summary_with_wake", summary);
    let trigger: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2",
    )
    .bind(&t)
    .bind(format!("{table}_wake"))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(trigger, 1, "migrate adds the wake trigger");

    let logs = [
        out_file(&format!("{test}-a")),
        out_file(&format!("{test}-b")),
    ];
    let port = crate::common::own_server::free_port();
    let _relays = [
        ob([
            "relay",
            "--loop",
            "--metrics-addr",
            &format!("127.0.0.1:{port}"),
        ])
        .pg(&t)
        .config(&cfg)
        .spawn(Some(&logs[0])),
        spawn_loop_relay(&t, &cfg, &logs[1]),
    ];
    for log in &logs {
        wait_log(log, "wake-up on commit: listening", 1).await;
    }
    // counted from 0 before the first wake-up, as every per-route counter (it was missing)
    let scrape = async || {
        let url = format!("http://127.0.0.1:{port}/metrics");
        reqwest::get(url).await.unwrap().text().await.unwrap()
    };
    let before = scrape().await;
    assert!(
        before.contains("outboxctl_wakes_total{route=\"orders\"} 0"),
        "{before}"
    );
    // one statement per 10 rows: 20 notifications
    for _ in 0..20 {
        stage(&mut conn, &t, "orders", 10, Some(7)).await;
    }
    wait_published(&mut conn, &t, 200, &logs[0]).await;
    let ids = event_ids(&out);
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (200, 200), "each row once");
    let metrics = scrape().await;
    let wakes: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("outboxctl_wakes_total{route=\"orders\"} "))
        .unwrap_or_else(|| panic!("{metrics}"))
        .parse()
        .unwrap();
    assert!(wakes >= 1.0, "{metrics}");

    // the listeners' connections die: they come back, and the next rows still wake them
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query ILIKE $1",
    )
    .bind(format!("%LISTEN \"{table}_wake\"%"))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(killed, 2, "one listener per relay");
    for log in &logs {
        wait_log(log, "wake-up connection is gone", 1).await;
        wait_log(log, "the wake-up connection listens again", 1).await;
    }
    stage(&mut conn, &t, "orders", 30, None).await;
    wait_published(&mut conn, &t, 230, &logs[1]).await;
}

#[tokio::test]
async fn behind_a_transaction_pooler_it_says_why_it_polls_and_wake_url_fixes_it() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = own_table(&schema, test);
    let bouncer = PgBouncer::start(test, "transaction").await;
    let out = out_file(test);
    let cfg = wake_config(test, &out, "");
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    let log = out_file(&format!("{test}-pooled"));
    let pooled = ob(["relay", "--loop", "--relation", &t])
        .args(["--database-url", &bouncer.url])
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "goes through a pooler", 1).await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("relay.wake: notify is off for this run, polling every 1h")
            && text.contains("set relay.wake_url to a direct or session-pooled URL"),
        "{text}"
    );
    drop(pooled);

    // named as wake_url anyway: the NOTIFY round trip finds out, and nothing stays listening
    let told = wake_config(
        &format!("{test}-told"),
        &out,
        &format!("  wake_url: {}\n", bouncer.url),
    );
    let log = out_file(&format!("{test}-told"));
    let fooled = ob(["relay", "--loop", "--relation", &t])
        .args(["--database-url", &bouncer.url])
        .config(&told)
        .spawn(Some(&log));
    wait_log(&log, "did not reach the LISTEN", 1).await;
    // said in its own words, not as the driver's source line
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("sqlx_postgres::") && !text.contains("executor:"),
        "{text}"
    );
    drop(fooled);
    stage(&mut conn, &t, "orders", 3, None).await;
    ob(["relay", "--once", "--relation", &t])
        .args(["--database-url", &bouncer.url, "--max-passes", "3"])
        .config(&told)
        .code(OK);

    let direct = wake_config(
        &format!("{test}-direct"),
        &out,
        &format!("  wake_url: {}\n", crate::common::pg_url()),
    );
    let log = out_file(&format!("{test}-direct"));
    let _relay = ob(["relay", "--loop", "--relation", &t])
        .args(["--database-url", &bouncer.url])
        .config(&direct)
        .spawn(Some(&log));
    wait_log(&log, "wake-up on commit: listening", 1).await;
    stage(&mut conn, &t, "orders", 5, None).await;
    wait_published(&mut conn, &t, 8, &log).await;
}

#[tokio::test]
async fn without_the_trigger_it_says_to_migrate() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let out = out_file(test);
    let cfg = wake_config(test, &out, "");
    let log = out_file(&format!("{test}-log"));
    let _relay = spawn_loop_relay(&schema.rel("outbox"), &cfg, &log);
    wait_log(&log, "has no wake trigger", 1).await;
    let plan = ob(["migrate", "--dry-run"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .code(OK);
    assert!(
        plan.stdout.contains(&format!(
            "add the wake function {}.outboxctl_wake and trigger outbox_wake",
            schema.name
        )) && plan.stdout.contains("REFERENCING NEW TABLE")
            && plan.stdout.contains("FOR EACH STATEMENT"),
        "{plan:?}"
    );
}

/// A `wake_url` naming a variable this process does not have fails the relay that listens,
/// naming it, and no other command (an operator's `migrate --dry-run`, `route list`).
#[tokio::test]
async fn a_wake_url_variable_not_set_fails_only_the_listening_relay() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let unset = "  wake_url: \"postgres://relay:${OUTBOXCTL_TEST_UNSET_WAKE}@127.0.0.1/test\"\n";
    let cfg = wake_config(test, &out_file(test), unset);
    let t = schema.rel("outbox");
    ob(["migrate", "--dry-run"]).pg(&t).config(&cfg).code(OK);
    let r = ob(["relay", "--loop"]).pg(&t).config(&cfg).run();
    assert_eq!(r.code, crate::common::ERROR, "{r:?}");
    assert!(
        r.stderr
            .contains("relay.wake_url: ${OUTBOXCTL_TEST_UNSET_WAKE} is not set"),
        "{r:?}"
    );
}

#[tokio::test]
async fn an_insert_wakes_the_relay_on_mongo_through_a_change_stream() {
    let test = test_name!();
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    let out = out_file(test);
    let cfg = wake_config(test, &out, "");
    ob(["migrate", "-q"]).mongo(&coll).config(&cfg).code(OK);
    let log = out_file(&format!("{test}-log"));
    let _relay = ob(["relay", "--loop"])
        .mongo(&coll)
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "wake-up on insert: following a change stream", 1).await;
    emit_events("orders", 3, "{}")
        .mongo(&coll)
        .config(&cfg)
        .code(OK);
    wait_until(Duration::from_secs(30), "3 events woken out", || {
        event_ids(&out).len() == 3
    })
    .await;
}

/// The change stream wakes every lane as it opens, then names each insert's route: the lanes
/// serving it wake, and only them (a stream that cannot read its events would instead end,
/// reopen and wake every lane).
#[tokio::test]
async fn the_mongo_change_stream_names_the_route_of_each_insert() {
    use outboxctl::wake::{WakeSignal, Wakers};
    use std::sync::{Arc, Mutex};
    let db = MongoDb::new(test_name!()).await;
    let name =
        outboxctl::target::CollectionName::parse("collection", &format!("{}.outbox", db.name))
            .unwrap();
    db.db().create_collection("outbox").await.unwrap();
    let coll = outboxctl::store::mongo::wake::listen(&db.client, &name)
        .await
        .unwrap();
    let (orders, invoices) = (
        Arc::new(WakeSignal::default()),
        Arc::new(WakeSignal::default()),
    );
    let wakers = Wakers(vec![
        (vec!["orders".into()], orders.clone()),
        (vec!["invoices".into()], invoices.clone()),
    ]);
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let task = tokio::spawn({
        let heard = heard.clone();
        outboxctl::store::mongo::wake::run(coll, wakers, move |r| {
            heard.lock().unwrap().push(r.to_owned())
        })
    });
    // the stream wakes every lane as it opens (an insert made before has no event), then
    // wakes by route: insert until it hears one
    let opened = tokio::time::timeout(Duration::from_secs(10), orders.notified()).await;
    assert!(opened.is_ok(), "the stream opened and woke nobody");
    assert_eq!((orders.take(), invoices.take()), (None, None), "every lane");
    let outbox = db.db().collection::<mongodb::bson::Document>("outbox");
    crate::common::eventually(
        Duration::from_secs(10),
        "the stream hears an insert",
        async || {
            if !heard.lock().unwrap().is_empty() {
                return Ok(());
            }
            outbox
                .insert_one(mongodb::bson::doc! { "outbox_route": "orders" })
                .await
                .map_err(|e| e.to_string())?;
            Err("nothing heard yet".into())
        },
    )
    .await;
    assert!(heard.lock().unwrap().iter().all(|r| r == "orders"));
    assert_eq!(
        orders.take(),
        Some(HashSet::from(["orders".to_owned()])),
        "the route's lane, by name"
    );
    assert_eq!(invoices.take(), Some(HashSet::new()), "not the others");
    task.abort();
}

/// Wakes serve the routes they name without putting off the tick that serves every route: a
/// lane whose busy route wakes it all the time still reaches its other route's retry once it
/// is due (nothing wakes for that), within an interval.
#[tokio::test]
async fn a_busy_route_waking_its_lane_does_not_starve_the_other_routes() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = own_table(&schema, test);
    let out = out_file(test);
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 1s\n  wake: notify\n  routes:\n    orders:\n      to: file:{o}\n    billing:\n      to: file:{o}\n",
            o = out.display()
        ),
    );
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    let log = out_file(&format!("{test}-log"));
    let _relay = spawn_loop_relay(&t, &cfg, &log);
    wait_log(&log, "wake-up on commit: listening", 1).await;
    // billing's row: a retry due in a second; becoming due wakes nobody
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, attempts, available_at)
         VALUES (gen_random_uuid(), 'billing', '0190c4e2-8a6c-7e4a-9b1e-00000000b111', 'b', now(), '{{}}', 'pending', now(), 1, now() + interval '1 second')"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    // orders commits every 200 ms, waking the lane each time
    let busy = async {
        let mut conn = crate::common::pg().await;
        loop {
            stage(&mut conn, &t, "orders", 1, None).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let billing = "0190c4e2-8a6c-7e4a-9b1e-00000000b111";
    let delivered = wait_until(
        Duration::from_secs(6),
        "billing's retry delivered while orders keeps waking",
        || event_ids(&out).iter().any(|e| e == billing),
    );
    tokio::select! {
        () = busy => unreachable!("the busy route stages for ever"),
        () = delivered => {}
    }
}

/// A listener whose connection goes silent (its PostgreSQL, one of the test's own, stopped with
/// SIGSTOP: the connection stays open and nothing answers) is found out by its quiet check and
/// wakes every lane, where before it waited on the read for ever; while the server answers, a
/// quiet listener wakes nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_whose_server_goes_silent_wakes_every_lane() {
    use outboxctl::store::postgres::wake::{ListenOn, listen, run};
    use outboxctl::wake::{WakeSignal, Wakers};
    use std::sync::Arc;
    let test = test_name!();
    let (pg, url) = crate::common::own_postgres(test, false).await;
    let url = outboxctl::dburl::DatabaseUrl::parse(&url).unwrap();
    let channels = vec!["outbox_wake".to_owned()];
    let listener = listen(&url, &url, &channels, Duration::from_secs(5))
        .await
        .unwrap();
    let lane = Arc::new(WakeSignal::default());
    let wakers = Wakers(vec![(vec!["orders".into()], lane.clone())]);
    let on = ListenOn {
        url: url.clone(),
        notify_url: url,
        channels,
        check_every: Duration::from_millis(300),
    };
    let task = tokio::spawn(run(listener, on, wakers, |_| {}));
    // quiet, with the server there: several checks pass and nothing wakes
    let quiet = tokio::time::timeout(Duration::from_secs(1), lane.notified()).await;
    assert!(quiet.is_err(), "a quiet listener woke its lane");
    pg.signal_postgres("-STOP");
    let woken = tokio::time::timeout(Duration::from_secs(10), lane.notified()).await;
    pg.signal_postgres("-CONT");
    task.abort();
    assert!(woken.is_ok(), "the silent connection went unnoticed");
    assert_eq!(lane.take(), None, "every route of the lane");
}

/// The pooler away while the direct `wake_url` goes on notifying: a notification does not
/// send the relay to the pooler at once, each (a connection storm while writers commit); it
/// asks at its own pace, 100 ms doubling to 1 s.
#[tokio::test]
async fn notifications_while_the_pooler_is_away_do_not_storm_it() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = own_table(&schema, test);
    let mut bouncer = PgBouncer::start(test, "transaction").await;
    let out = out_file(test);
    let direct = format!("  wake_url: {}\n", crate::common::pg_url());
    let cfg = wake_config(test, &out, &direct);
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    let log = out_file(&format!("{test}-log"));
    let _relay = ob(["relay", "--loop", "--relation", &t])
        .args(["--database-url", &bouncer.url])
        .config(&cfg)
        .env("RUST_LOG", "outboxctl=debug")
        .spawn(Some(&log));
    wait_log(&log, "wake-up on commit: listening", 1).await;
    bouncer.stop();
    stage(&mut conn, &t, "orders", 1, None).await;
    wait_log(&log, "the database is away", 1).await;
    let away = std::time::Instant::now();
    let asked = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.matches("the database is still away").count()
    };
    let before = asked();
    // a commit every 20 ms for 2 s: a hundred notifications
    while away.elapsed() < Duration::from_secs(2) {
        stage(&mut conn, &t, "orders", 1, None).await;
        // pacing the writer, not waiting on a condition
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let probes = asked() - before;
    assert!(probes <= 8, "{probes} probes of the pooler in 2 s");
}

/// The wake-up URL's server away when the relay starts (a port nothing listens on yet): the
/// relay polls and its listener asks again until the server answers, then listens, and staged
/// rows are delivered at once (the interval is an hour: only a wake delivers them). It used to
/// poll for the whole run.
#[tokio::test]
async fn a_wake_url_away_at_start_is_listened_on_once_it_answers() {
    use sqlx::postgres::PgConnectOptions;
    use std::str::FromStr;
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = own_table(&schema, test);
    let server = PgConnectOptions::from_str(&crate::common::pg_url()).unwrap();
    let (host, port) = (server.get_host().to_owned(), server.get_port());
    let front = crate::common::own_server::free_port();
    let wake_url = crate::common::pg_url().replacen(&format!(":{port}/"), &format!(":{front}/"), 1);
    assert_ne!(
        wake_url,
        crate::common::pg_url(),
        "the test URL names its port"
    );
    let out = out_file(test);
    let cfg = wake_config(test, &out, &format!("  wake_url: {wake_url}\n"));
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    let log = out_file(&format!("{test}-log"));
    let _relay = crate::common::own_server::spawn_loop_relay(&t, &cfg, &log);
    wait_log(&log, "while the listener tries again", 1).await;
    // the server answers at that address from now on
    let _front = crate::common::KillOnDrop::new(
        std::process::Command::new("socat")
            .arg(format!("TCP-LISTEN:{front},bind=127.0.0.1,reuseaddr,fork"))
            .arg(format!("TCP:{host}:{port}"))
            .spawn()
            .expect("socat (scripts/services.sh installs it)"),
    );
    wait_log(&log, "wake-up on commit: listening", 1).await;
    stage(&mut conn, &t, "orders", 3, None).await;
    wait_published(&mut conn, &t, 3, &log).await;
}
