//! Against a PostgreSQL of the test's own (`scripts/postgres`), so that the test may speak TLS to
//! it, stop it or stall it without touching the machine's server.

use std::time::Duration;

use sqlx::Connection;

use crate::common::{CONNECT, ERROR, OK, emit_events, eventually, ob, own_postgres};

/// `app.outbox` (consume storage) on the server at `url`.
fn on(url: &str) -> [String; 6] {
    [
        "--database-url".to_owned(),
        url.to_owned(),
        "--relation".into(),
        "app.outbox".into(),
        "--storage".into(),
        "consume".into(),
    ]
}

/// Stages `n` events into `app.outbox` on the server at `url`.
fn emit(url: &str, n: u32) {
    emit_events("orders", n, "{}").args(on(url)).code(OK);
}

/// `relay --once` of route `orders` to stdout, on the server at `url`.
fn relay(url: &str) -> crate::common::Run {
    ob(["relay", "--once", "--route", "orders", "--to", "stdout"])
        .args(on(url))
        .run()
}

/// TLS as `sslmode` asks, on the relay's own connection (tokio-postgres) as on the others'
/// (sqlx): `verify-full` against the server's CA delivers, and the relay's connection is
/// encrypted; `verify-full` without the CA (the web's roots) refuses to connect, exit 3, and
/// publishes nothing; `require` encrypts without checking, and with `sslrootcert` checks the
/// chain; `verify-ca` checks the chain only, and is refused without `sslrootcert`.
#[tokio::test]
async fn the_relay_speaks_tls_as_sslmode_asks() {
    let (pg, url) = own_postgres(test_name!(), true).await;
    let ca = pg.dir.join("data").join("root.crt");
    let verified = format!("{url}?sslmode=verify-full&sslrootcert={}", ca.display());
    ob(["migrate", "-q"]).args(on(&verified)).code(OK);
    let emit = |n: u32| emit(&verified, n);
    emit(3);
    let r = relay(&format!("{url}?sslmode=verify-full"));
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("certificate"), "{r:?}");
    assert_eq!(r.stdout.matches("\"event_id\"").count(), 0, "{r:?}");
    // verify-ca without its CA: the public roots would take any site's certificate, so it
    // is refused before connecting; require with a root certificate checks the chain (here
    // against the public roots, which did not sign the server's)
    let r = relay(&format!("{url}?sslmode=verify-ca"));
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("sslrootcert"), "{r:?}");
    let public = "/etc/ssl/certs/ca-certificates.crt";
    assert!(
        std::path::Path::new(public).exists(),
        "{public} is missing: install Debian's ca-certificates package"
    );
    let r = relay(&format!("{url}?sslmode=require&sslrootcert={public}"));
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("certificate"), "{r:?}");
    assert_eq!(r.stdout.matches("\"event_id\"").count(), 0, "{r:?}");
    for u in [
        verified.clone(),
        format!("{url}?sslmode=require"),
        format!("{url}?sslmode=require&sslrootcert={}", ca.display()),
        format!("{url}?sslmode=verify-ca&sslrootcert={}", ca.display()),
    ] {
        let r = relay(&u);
        assert_eq!(
            (r.code, r.stdout.matches("\"event_id\"").count()),
            (OK, 3),
            "{u}: {r:?}"
        );
        emit(3);
    }
    // a looping relay's connection, seen from the server: encrypted
    let looping = ob(["relay", "--loop", "--route", "orders", "--to", "stdout"])
        .args(on(&verified))
        .spawn(None);
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    eventually(Duration::from_secs(30), "the relay's connection, encrypted", async || {
        let seen: Vec<bool> = sqlx::query_scalar(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'outboxctl'",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        if !seen.is_empty() && seen.iter().all(|&s| s) {
            Ok(())
        } else {
            Err(format!("outboxctl's connections, ssl or not: {seen:?}"))
        }
    })
    .await;
    drop(looping);
}

/// A server that authenticates a role by its client certificate (`cert` in pg_hba.conf): with
/// `sslcert` and `sslkey` in the URL both kinds of connection offer it, the operator commands'
/// (sqlx) and the relay's own (tokio-postgres), and the relay delivers; without them the relay
/// is turned away (exit 3) and publishes nothing; a certificate without its key is refused
/// before connecting, naming what is missing.
#[tokio::test]
async fn the_relay_offers_a_client_certificate_when_given() {
    let (pg, url) = own_postgres(test_name!(), true).await;
    let mut admin = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("CREATE ROLE outboxctl_cert LOGIN SUPERUSER")
        .execute(&mut admin)
        .await
        .unwrap();
    let file = |name: &str| pg.dir.join("data").join(name).display().to_string();
    let base = url.replace("postgres@", "outboxctl_cert@");
    let tls = format!(
        "{base}?sslmode=verify-full&sslrootcert={}",
        file("root.crt")
    );
    let with_cert = format!(
        "{tls}&sslcert={}&sslkey={}",
        file("client.crt"),
        file("client.key")
    );
    ob(["migrate", "-q"]).args(on(&with_cert)).code(OK);
    emit(&with_cert, 3);
    let r = relay(&tls);
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("certificate"), "{r:?}");
    assert_eq!(r.stdout.matches("\"event_id\"").count(), 0, "{r:?}");
    let r = relay(&format!("{tls}&sslcert={}", file("client.crt")));
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("sslkey"), "{r:?}");
    // a file that is not there is named, exit 2, for both kinds (it was exit 3, unnamed)
    let missing = format!(
        "{tls}&sslcert=/nonexistent/client.crt&sslkey={}",
        file("client.key")
    );
    let said = "cannot read the database URL's sslcert /nonexistent/client.crt";
    for r in [
        relay(&missing),
        ob(["inspect", "summary"]).args(on(&missing)).run(),
    ] {
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(r.stderr.contains(said), "{r:?}");
    }
    let r = relay(&with_cert);
    assert_eq!(
        (r.code, r.stdout.matches("\"event_id\"").count()),
        (OK, 3),
        "{r:?}"
    );
}
