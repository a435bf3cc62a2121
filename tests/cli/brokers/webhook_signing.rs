//! Webhook signatures as receivers check them: Standard Webhooks verified by the reference
//! Python library (`standardwebhooks` from PyPI, `Webhook(secret).verify(body, headers)`),
//! key rotation, outboxctl's own header kept byte for byte, both at once, a retry signed
//! afresh, and bad signing options refused before any I/O.

use std::collections::HashMap;
use std::path::PathBuf;

use super::*;

/// The Python that has `standardwebhooks` (scripts/services.sh makes its virtualenv).
fn verifier_python() -> PathBuf {
    let cache = std::env::var_os("OUTBOXCTL_CACHE").map_or_else(
        || PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/outboxctl"),
        PathBuf::from,
    );
    let python = cache.join("standardwebhooks-1.3.0/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/services.sh, which makes a virtualenv there with standardwebhooks 1.3.0 from PyPI",
        python.display()
    );
    python
}

/// `Webhook(secret).verify(body, headers)` for each secret, as a receiver would.
const VERIFY: &str = r#"
import json, sys
from standardwebhooks import Webhook
headers = json.load(open(sys.argv[1]))
body = open(sys.argv[2], "rb").read()
for secret in sys.argv[3:]:
    Webhook(secret).verify(body, headers)
"#;

/// Verifies one recorded request with the reference library, once per secret; `Err` holds
/// what Python said.
fn verify(
    test: &str,
    (headers, body): &(HashMap<String, String>, String),
    secrets: &[&str],
) -> Result<(), String> {
    let dir = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(crate::common::unique_name(test));
    std::fs::create_dir_all(&dir).unwrap();
    let received: HashMap<&String, &String> = headers
        .iter()
        .filter(|(k, _)| !k.starts_with(':'))
        .collect();
    std::fs::write(
        dir.join("headers.json"),
        serde_json::to_vec(&received).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("body"), body).unwrap();
    let out = std::process::Command::new(verifier_python())
        .arg("-c")
        .arg(VERIFY)
        .arg(dir.join("headers.json"))
        .arg(dir.join("body"))
        .args(secrets)
        .output()
        .expect("run the verifier's python");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("ModuleNotFoundError"),
        "standardwebhooks is not installed: run scripts/services.sh\n{stderr}"
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(stderr.into_owned())
    }
}

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ROTATED: &str = "whsec_c2VjcmV0LWtleS10d28=";
const EVENT_ID: &str = "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e";

fn hook_config(test: &str, addr: &str, options: &str) -> String {
    crate::common::config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {addr}\n      secret_env: OUTBOXCTL_TEST_HOOK_SECRET\n      timeout: 2s\n{options}"
        ),
    )
}

fn relay_signed(schema: &PgSchema, cfg: &str, secrets: &str) -> crate::common::Run {
    ob(["relay", "--once", "--hlc-ordering", "--propagate-trace"])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .env("OUTBOXCTL_TEST_HOOK_SECRET", secrets)
        .code(OK)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whsec_secret_signs_to_standard_webhooks_and_each_retry_signs_afresh() {
    let test = test_name!();
    let (schema, mut conn, t) = worked_example_outbox(test).await;
    let server = hook(vec![500]).await;
    let cfg = hook_config(test, &server.addr, "");
    relay_signed(&schema, &cfg, SECRET);
    // the retry's timestamp is a later second
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    make_due(&mut conn, &t).await;
    relay_signed(&schema, &cfg, SECRET);
    let status: String = sqlx::query_scalar(&format!("SELECT status FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(status, "published");
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    for (h, _) in &reqs {
        assert_eq!(h["webhook-id"], EVENT_ID, "the event id, on every attempt");
        assert_eq!(h["idempotency-key"], EVENT_ID);
        assert!(h["webhook-signature"].starts_with("v1,"), "{h:?}");
        assert!(!h.contains_key("x-outboxctl-signature"), "{h:?}");
    }
    let stamp = |i: usize| reqs[i].0["webhook-timestamp"].parse::<u64>().unwrap();
    assert!(stamp(1) > stamp(0), "{} then {}", stamp(0), stamp(1));
    assert_ne!(
        reqs[0].0["webhook-signature"],
        reqs[1].0["webhook-signature"]
    );
    for r in &reqs {
        verify(test, r, &[SECRET]).unwrap();
    }
    // the verifier does refuse: another key, a changed body
    let refused = |e: Result<(), String>| {
        let e = e.unwrap_err();
        assert!(e.contains("No matching signature found"), "{e}");
    };
    refused(verify(test, &reqs[1], &[ROTATED]));
    let mut changed = reqs[1].clone();
    changed.1 = changed.1.replace("19.90", "0.01");
    refused(verify(test, &changed, &[SECRET]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_signs_each_batch_once_per_secret() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--hlc-ordering", "--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let server = hook(vec![]).await;
    let cfg = hook_config(test, &server.addr, "      batch: 10\n");
    relay_signed(&schema, &cfg, &format!("{SECRET}  {ROTATED}"));
    let reqs = server.requests.lock().unwrap().clone();
    assert!(!reqs.is_empty());
    for r in &reqs {
        let h = &r.0;
        assert!(h.contains_key("x-outboxctl-batch-size"), "{h:?}");
        assert_eq!(
            h["webhook-id"], h["idempotency-key"],
            "a batch's id is its key"
        );
        assert_eq!(h["webhook-signature"].matches("v1,").count(), 2, "{h:?}");
        // a receiver that knows either key accepts it
        verify(test, r, &[SECRET]).unwrap();
        verify(test, r, &[ROTATED]).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outboxctl_keeps_its_header_and_both_sends_both() {
    let test = test_name!();
    let (schema, mut conn, t) = worked_example_outbox(test).await;
    // signature: outboxctl with a plain secret: the header of before, nothing else
    let server = hook(vec![]).await;
    let cfg = hook_config(test, &server.addr, "      signature: outboxctl\n");
    relay_signed(&schema, &cfg, "s3cret");
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 1);
    let (h, body) = &reqs[0];
    assert_eq!(
        h["x-outboxctl-signature"],
        outboxctl::destination::http::signature(b"s3cret", body.as_bytes())
    );
    assert!(
        !h.keys().any(|k| k.starts_with("webhook-")),
        "no Standard Webhooks headers: {h:?}"
    );

    // both: each receiver finds its own header
    stage(&mut conn, &t, "orders", 1, None).await;
    let server = hook(vec![]).await;
    let cfg = hook_config(test, &server.addr, "      signature: both\n");
    relay_signed(&schema, &cfg, SECRET);
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 1);
    let (h, body) = &reqs[0];
    assert_eq!(
        h["x-outboxctl-signature"],
        outboxctl::destination::http::signature(SECRET.as_bytes(), body.as_bytes())
    );
    verify(test, &reqs[0], &[SECRET]).unwrap();
}

#[test]
fn bad_signing_options_are_refused_naming_the_key_before_any_io() {
    let test = test_name!();
    let cases = [
        (
            "      signature: sha1\n",
            SECRET,
            "error: relay.routes.orders.signature: unknown value \"sha1\": use standard, outboxctl or both\n",
        ),
        (
            "      signature: standard\n",
            "whsec_n0t*base64!",
            "error: relay.routes.orders.signature: secret 1 of OUTBOXCTL_TEST_HOOK_SECRET is not a Standard Webhooks key (whsec_ then the key in base64, standard alphabet)\n",
        ),
        (
            "",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw s3cret!",
            "error: relay.routes.orders.signature: OUTBOXCTL_TEST_HOOK_SECRET holds whsec_ secrets and others: say which scheme with signature: standard, outboxctl or both\n",
        ),
    ];
    for (options, secret, expected) in cases {
        let cfg = hook_config(test, "http://127.0.0.1:1/hook", options);
        // a database that does not answer: planning fails first, exit 2, not 3
        let out = ob([
            "relay",
            "--once",
            "--database-url",
            "postgres://postgres@127.0.0.1:1/test",
            "--config",
            &cfg,
        ])
        .env("OUTBOXCTL_TEST_HOOK_SECRET", secret)
        .run();
        assert_eq!(out.code, ERROR, "{out:?}");
        assert_eq!(out.stderr, expected, "{out:?}");
        assert!(!out.stderr.contains("n0t*base64"), "{out:?}");
    }
}
