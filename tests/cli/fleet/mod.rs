//! The fleet on real servers: the relay registry (relays in separate processes listed, one
//! killed with SIGKILL shown stale, one stopped shown stopped), pausing and resuming a route
//! while relays loop, `--once` on a paused route, behind pgbouncer, and on MongoDB.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::common::{
    CHECK_FAILED, ERROR, KillOnDrop, OK, PgSchema, RELAY_TO_NOWHERE, config_file, doctor_check,
    emit_events, eventually, lines, migrate, ob, out_file, stage,
};

mod mongo;
mod resume;
mod start;

fn line_count(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

/// Fast heartbeats and ticks, so staleness and pauses show within a second or two.
const FAST: &str = "relay:\n  interval: 50ms\n  heartbeat: 200ms\n";

fn relays(schema: &PgSchema, cfg: &str) -> Vec<Value> {
    let r = ob(["inspect", "relays", "--format", "json"])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .code(OK);
    r.json().as_array().expect("a list").clone()
}

fn relay_loop(schema: &PgSchema, cfg: &str, to: &Path, extra: &[&str]) -> KillOnDrop {
    ob(["relay", "--loop", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .args(["--to", &format!("file:{}", to.display())])
        .args(extra)
        .spawn(None)
}

fn by_pid(list: &[Value], pid: u32) -> Option<Value> {
    list.iter().find(|r| r["pid"] == pid).cloned()
}

#[tokio::test]
async fn relays_in_separate_processes_are_listed_a_killed_one_goes_stale_a_stopped_one_says_so() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(test, FAST);
    let to = out_file(test);
    let killed = relay_loop(&schema, &cfg, &to, &[]);
    let mut stopped = relay_loop(&schema, &cfg, &to, &[]);
    let (k, s) = (killed.pid(), stopped.pid());
    eventually(
        Duration::from_secs(30),
        "both relays live, each after a pass",
        async || {
            let list = relays(&schema, &cfg);
            match (by_pid(&list, k), by_pid(&list, s)) {
                (Some(a), Some(b))
                    if a["state"] == "live"
                        && b["state"] == "live"
                        && !a["last_pass_at"].is_null()
                        && !b["last_pass_at"].is_null() =>
                {
                    Ok(())
                }
                _ => Err(format!("{list:?}")),
            }
        },
    )
    .await;
    let row = by_pid(&relays(&schema, &cfg), k).unwrap();
    assert_eq!(row["routes"], serde_json::json!(["orders"]));
    assert_eq!(row["version"], env!("CARGO_PKG_VERSION"));
    assert!(!row["host"].as_str().unwrap().is_empty());
    for field in [
        "id",
        "tenants",
        "started_at",
        "last_seen",
        "published",
        "lag_p99_ms",
        "metrics_addr",
        "last_error",
    ] {
        assert!(row.get(field).is_some(), "{field} missing from {row}");
    }
    let status = std::process::Command::new("kill")
        .args(["-KILL", &k.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    eventually(
        Duration::from_secs(30),
        "the killed relay stale, the other live",
        async || {
            let list = relays(&schema, &cfg);
            match (by_pid(&list, k), by_pid(&list, s)) {
                (Some(a), Some(b)) if a["state"] == "stale" && b["state"] == "live" => Ok(()),
                _ => Err(format!("{list:?}")),
            }
        },
    )
    .await;
    // the live one listed first, though it started after the killed one (oldest came first)
    let states: Vec<Value> = relays(&schema, &cfg)
        .iter()
        .map(|r| r["state"].clone())
        .collect();
    assert_eq!(states, ["live", "stale"], "live first");
    // doctor names the stale relay, and a paused route
    ob(["route", "pause", "orders", "--reason", "doctor test"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .code(OK);
    let doctor = ob(["doctor", "--format", "json"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .run();
    let checks = doctor.json();
    let check = doctor_check(&checks, "relays");
    assert_eq!(check["level"], "warn", "{check}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("pid {k} ")),
        "{check}"
    );
    let paused = doctor_check(&checks, "paused routes");
    assert!(
        paused["detail"].as_str().unwrap().contains("doctor test"),
        "{paused}"
    );
    drop(killed);
    let exit = stopped.terminate_within(Duration::from_secs(20)).await;
    assert!(exit.is_some_and(|e| e.success()), "{exit:?}");
    let row = by_pid(&relays(&schema, &cfg), s).unwrap();
    assert_eq!(row["state"], "stopped", "{row}");
}

#[tokio::test]
async fn a_pause_holds_every_looping_relay_from_its_next_pass_and_a_resume_releases_it() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    let cfg = config_file(test, FAST);
    let to = out_file(test);
    let storage = ["--storage", "consume"];
    let mut first = relay_loop(
        &schema,
        &cfg,
        &to,
        &[&storage[..], &["--metrics-addr", "127.0.0.1:0"]].concat(),
    );
    let mut second = relay_loop(&schema, &cfg, &to, &storage);
    stage(&mut conn, &t, "orders", 100, Some(5)).await;
    crate::common::wait_until(Duration::from_secs(30), "100 rows delivered", || {
        line_count(&to) == 100
    })
    .await;

    let paused = ob([
        "route",
        "pause",
        "orders",
        "--reason",
        "consumer broken",
        "--format",
        "json",
    ])
    .pg(&t)
    .config(&cfg)
    .code(OK)
    .json();
    assert_eq!(paused["already"], false);
    assert_eq!(paused["unserved"], false, "two live relays serve orders");
    let since =
        chrono::DateTime::parse_from_rfc3339(paused["pause"]["since"].as_str().unwrap()).unwrap();
    // every relay's row shows a pass finished after the pause
    let after = |since: chrono::DateTime<chrono::FixedOffset>| {
        let (schema, cfg) = (&schema, &cfg);
        async move || {
            let list = relays(schema, cfg);
            let live: Vec<&Value> = list.iter().filter(|r| r["state"] == "live").collect();
            let past = live.iter().all(|r| {
                r["last_pass_at"]
                    .as_str()
                    .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
                    .is_some_and(|p| p > since)
            });
            if live.len() == 2 && past {
                Ok(())
            } else {
                Err(format!("{list:?}"))
            }
        }
    };
    eventually(
        Duration::from_secs(30),
        "both relays past the pause",
        after(since),
    )
    .await;
    stage(&mut conn, &t, "orders", 50, Some(5)).await;
    let staged: chrono::DateTime<chrono::Utc> = sqlx::query_scalar("SELECT now()")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    eventually(
        Duration::from_secs(30),
        "both relays past the staging",
        after(staged.into()),
    )
    .await;
    assert_eq!(
        line_count(&to),
        100,
        "nothing of a paused route is published"
    );
    let pending: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status = 'pending'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(pending, 50);

    // the first relay's metrics say so; /readyz stays ready
    let addr = by_pid(&relays(&schema, &cfg), first.pid()).unwrap()["metrics_addr"]
        .as_str()
        .expect("the relay registers its metrics address")
        .to_owned();
    let http = reqwest::Client::new();
    eventually(
        Duration::from_secs(10),
        "outboxctl_route_paused at 1",
        async || {
            let text = http
                .get(format!("http://{addr}/metrics"))
                .send()
                .await
                .map_err(|e| e.to_string())?
                .text()
                .await
                .map_err(|e| e.to_string())?;
            if text.contains("outboxctl_route_paused{route=\"orders\",tenant=\"\"} 1") {
                Ok(())
            } else {
                Err(text)
            }
        },
    )
    .await;
    let ready = http
        .get(format!("http://{addr}/readyz"))
        .send()
        .await
        .unwrap();
    assert!(ready.status().is_success(), "{ready:?}");
    let list = ob(["route", "list", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .code(OK)
        .json();
    let orders = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "orders")
        .unwrap();
    assert_eq!(orders["state"], "paused");
    assert_eq!(orders["reason"], "consumer broken");
    assert!(
        orders["by"].as_str().unwrap().contains(" as postgres"),
        "{orders}"
    );

    ob(["route", "resume", "orders"])
        .pg(&t)
        .config(&cfg)
        .code(OK);
    crate::common::wait_until(Duration::from_secs(30), "the held rows delivered", || {
        line_count(&to) == 150
    })
    .await;
    for r in [&mut first, &mut second] {
        assert!(
            r.terminate_within(Duration::from_secs(20))
                .await
                .is_some_and(|e| e.success())
        );
    }
    let history = ob(["route", "list", "--history", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .code(OK)
        .json();
    let states: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["paused", "resumed"]);
    let ids: std::collections::HashSet<String> = lines(&to)
        .iter()
        .map(|l| l["event_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 150, "every event once");
}

#[tokio::test]
async fn relay_once_on_a_paused_route_says_so_and_exits_0() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    stage(&mut conn, &t, "billing", 3, None).await;
    let first = ob(["route", "pause", "orders", "--reason", "bad deploy"])
        .pg(&t)
        .code(OK);
    assert!(
        first.stderr.contains("no live relay serves route orders"),
        "{first:?}"
    );
    let again = ob(["route", "pause", "orders", "--reason", "other"])
        .pg(&t)
        .code(OK);
    assert!(
        again.stderr.contains("paused already") && again.stderr.contains("bad deploy"),
        "{again:?}"
    );
    let to = out_file(test);
    let r = ob([
        "relay", "--once", "--format", "json", "--route", "orders", "--route", "billing",
    ])
    .pg(&t)
    .args(["--to", &format!("file:{}", to.display())])
    .code(OK);
    assert!(
        r.stderr.contains("route orders paused by") && r.stderr.contains("bad deploy"),
        "{r:?}"
    );
    // its time as `route list` and `inspect` write it (here alone it had a `T`)
    let since = r.stderr.split(" since ").nth(1).unwrap_or_default();
    assert_eq!(since.as_bytes().get(10), Some(&b' '), "{r:?}");
    let stats = r.json();
    let orders = stats
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["route"] == "orders")
        .unwrap();
    assert_eq!(orders["claimed"], 0);
    assert_eq!(orders["paused"]["reason"], "bad deploy");
    assert_eq!(line_count(&to), 3, "billing relayed, orders held");
    let summary = ob(["inspect", "--format", "json"]).pg(&t).code(OK).json();
    let held = summary
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["route"] == "orders")
        .unwrap();
    assert_eq!(held["paused"]["reason"], "bad deploy", "{held}");
    // top (one snapshot in a pipe) shows the relay that ran and the paused route
    let top = ob(["top"]).pg(&t).code(OK);
    assert!(
        top.stdout.contains("route orders PAUSED by") && top.stdout.contains("bad deploy"),
        "{top:?}"
    );
    assert!(
        top.stdout.contains(" stopped on ") && top.stdout.contains("orders (paused)"),
        "{top:?}"
    );
    let resumed = ob(["route", "resume", "orders"]).pg(&t).code(OK);
    assert!(resumed.stderr.contains("resumed"), "{resumed:?}");
    let not = ob(["route", "resume", "orders"]).pg(&t).code(OK);
    assert!(not.stderr.contains("was not paused"), "{not:?}");
    ob(["relay", "--once", "--route", "orders"])
        .pg(&t)
        .args(["--to", &format!("file:{}", to.display())])
        .code(OK);
    assert_eq!(line_count(&to), 8);
}

#[tokio::test]
async fn route_commands_refuse_bad_input_and_change_nothing() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let r = ob([
        "route",
        "pause",
        "orders",
        "--tenant",
        "6d1f1b3e-8f3b-4c7a-9a53-2f0f6f1c2a11",
        "--reason",
        "x",
    ])
    .pg(&t)
    .code(ERROR);
    assert!(
        r.stderr.contains("--tenant needs outbox.tenant_aware"),
        "{r:?}"
    );
    let r = ob(["route", "pause", "orders", "--reason", "  "])
        .pg(&t)
        .code(ERROR);
    assert!(r.stderr.contains("--reason is empty"), "{r:?}");
    let off = config_file(test, "outbox:\n  registry: off\n");
    let r = ob(["route", "list"]).pg(&t).config(&off).code(ERROR);
    assert!(r.stderr.contains("outbox.registry is off"), "{r:?}");
    let list = ob(["route", "list", "--history", "--format", "json"])
        .pg(&t)
        .code(OK)
        .json();
    assert_eq!(list, serde_json::json!([]), "nothing was paused");
}

/// An on-call role that may pause routes but not read the relays' rows: the pause is made and
/// `route pause` exits 0, warning that it could not tell whether a relay serves the route
/// (it used to exit 2 with the pause in force, and a script took the route for flowing).
#[tokio::test]
async fn route_pause_made_is_success_even_when_the_relays_cannot_be_listed() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let (s, role) = (&schema.name, format!("oncall_{}", schema.name));
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
         GRANT USAGE ON SCHEMA {s} TO {role}; GRANT ALL ON ALL TABLES IN SCHEMA {s} TO {role};
         REVOKE ALL ON {s}.outbox_relays FROM {role}"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let url = crate::common::pg_url().replacen("://postgres@", &format!("://{role}@"), 1);
    let r = ob(["route", "pause", "orders", "--reason", "bad deploy"])
        .args(["--database-url", &url, "--relation", &t])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stderr.contains("could not list the relays"), "{r:?}");
    let list = ob(["route", "list", "--format", "json"])
        .pg(&t)
        .code(OK)
        .json();
    assert_eq!(list[0]["reason"], "bad deploy", "{list}");
    crate::common::drop_role(&mut conn, &role).await;
}

#[tokio::test]
async fn a_relay_on_a_database_without_the_registry_runs_and_says_once_how_to_add_it() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let off = config_file(test, "outbox:\n  registry: off\n");
    let r = ob(["migrate", "-q", "--yes"])
        .pg(&schema.rel("outbox"))
        .config(&off)
        .code(OK);
    assert!(!r.stdout.contains("registry"), "{r:?}");
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 4, None).await;
    let to = out_file(test);
    let r = ob(["relay", "--once", "--route", "orders"])
        .pg(&t)
        .args(["--to", &format!("file:{}", to.display())])
        .code(OK);
    assert_eq!(
        r.stderr
            .matches("run `outboxctl migrate` to add it")
            .count(),
        1,
        "{r:?}"
    );
    assert_eq!(line_count(&to), 4);
}

#[tokio::test]
async fn pause_and_registry_work_behind_pgbouncer() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    let bouncer = crate::pgbouncer::PgBouncer::start(test, "transaction").await;
    let via = |args: &[&str]| ob(args).args(["--database-url", &bouncer.url, "--relation", &t]);
    via(&["route", "pause", "orders", "--reason", "pooler test"]).code(OK);
    let to = out_file(test);
    let dest = format!("file:{}", to.display());
    let r = via(&["relay", "--once", "--route", "orders", "--to", &dest]).code(OK);
    assert!(r.stderr.contains("pooler test"), "{r:?}");
    assert_eq!(line_count(&to), 0);
    via(&["route", "resume", "orders"]).code(OK);
    via(&["relay", "--once", "--route", "orders", "--to", &dest]).code(OK);
    assert_eq!(line_count(&to), 6);
    let list = via(&["inspect", "relays", "--format", "json"])
        .code(OK)
        .json();
    let states: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["stopped", "stopped"], "{list}");
}

/// The claim itself reads the pauses (the relay's next pass holds, whatever its heartbeat has
/// seen): in every claim shape, a paused route's claim takes nothing, another route's claim is
/// untouched, and the claim takes the rows again once resumed.
#[tokio::test]
async fn every_claim_shape_takes_nothing_of_a_paused_route() {
    use outboxctl::model::{KeyOrder, Storage};
    use outboxctl::store::postgres::{PgStore, PgStoreOptions};
    use outboxctl::store::{PassTarget, RelayStore};
    use outboxctl::target::{QualifiedName, RelationSpec};
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--hlc-ordering", "--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, Some(2)).await;
    stage(&mut conn, &t, "billing", 3, None).await;
    let pauses = schema.rel("outbox_relays_pauses");
    let url = outboxctl::dburl::DatabaseUrl::parse(&crate::common::pg_url()).unwrap();
    for storage in [Storage::Retain, Storage::Consume] {
        for key_order in [KeyOrder::BestEffort, KeyOrder::Strict] {
            for hlc in [false, true] {
                let shape = format!("{storage:?} {key_order:?} hlc {hlc}");
                let opts = PgStoreOptions {
                    relation: RelationSpec::parse("relation", &t).unwrap(),
                    delivery_log: None,
                    storage,
                    hlc_ordering: hlc,
                    propagate_trace: false,
                    tenant_aware: false,
                    key_order,
                    pass_statement_timeout: Duration::from_secs(1),
                    pass_deadline: Duration::from_secs(5),
                    prepared_statements: false,
                    pauses: Some(QualifiedName::parse("pauses", &pauses).unwrap()),
                };
                let mut store = PgStore::connect(&url, Duration::from_secs(5), opts)
                    .await
                    .unwrap();
                let mut claim = async |route: &str| {
                    let target = PassTarget {
                        route: route.into(),
                        tenant: None,
                    };
                    store.begin_pass(&target).await.unwrap();
                    let n = store
                        .claim(&target, 100, chrono::Utc::now())
                        .await
                        .unwrap()
                        .rows
                        .len();
                    // nothing changes: retain's claimed rows go back to pending
                    store.rollback_pass().await;
                    sqlx::query(&format!("UPDATE {t} SET status = 'pending', processing_at = NULL WHERE status = 'processing'"))
                        .execute(&mut conn)
                        .await
                        .unwrap();
                    n
                };
                ob(["route", "pause", "orders", "--reason", "claim test"])
                    .pg(&t)
                    .code(OK);
                assert_eq!(claim("orders").await, 0, "{shape}: paused, yet claimed");
                assert!(claim("billing").await > 0, "{shape}: another route held");
                ob(["route", "resume", "orders"]).pg(&t).code(OK);
                assert!(claim("orders").await > 0, "{shape}: resumed, yet held");
            }
        }
    }
}

#[tokio::test]
async fn any_relay_prunes_rows_stopped_or_stale_for_a_day_and_keeps_the_rest() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let reg = schema.rel("outbox_relays");
    for (id, seen, stopped) in [
        ("gone-stale", "2 days", false),
        ("gone-stopped", "25 hours", true),
        ("kept-stopped", "1 hour", true),
    ] {
        sqlx::query(&format!(
            "INSERT INTO {reg} (id, host, pid, version, routes, tenants, started_at, last_seen,
                                published, heartbeat_ms, stopped_at)
             VALUES ($1, 'h', 1, 'v', ARRAY['orders'], '{{}}', now() - interval '3 days',
                     now() - $2::interval, 0, 5000, CASE WHEN $3 THEN now() - $2::interval END)"
        ))
        .bind(id)
        .bind(seen)
        .bind(stopped)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    ob(RELAY_TO_NOWHERE).pg(&t).code(OK);
    let ids: Vec<String> = sqlx::query_scalar(&format!("SELECT id FROM {reg} ORDER BY id"))
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        ids.len(),
        2,
        "the relay's own row and the recent one: {ids:?}"
    );
    assert!(ids.iter().any(|i| i == "kept-stopped"), "{ids:?}");
    assert!(!ids.iter().any(|i| i.starts_with("gone")), "{ids:?}");
}
