//! Replay and signals: Ctrl-C and SIGTERM stop it where it resumes.

use super::*;

/// Sends `signal` to the replay `child`, which then exits 130: its stderr.
async fn stopped_by(child: std::process::Child, signal: &str) -> String {
    let pid = child.id().to_string();
    let kill = std::process::Command::new("kill")
        .args([signal, &pid])
        .status();
    assert!(kill.unwrap().success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    stderr
}

/// Ctrl-C in the middle of a paced replay: no publish starts after it, the one in flight
/// finishes, and it says where to resume (exit 130); resuming there sends the rest, nothing
/// lost and nothing twice. (It exited at once and said nothing of where it was.)
#[tokio::test]
async fn ctrl_c_stops_a_replay_where_it_resumes() {
    let test = test_name!();
    let (schema, _conn, cfg, first) = delivered(test, 40).await;
    let hook = hook(Vec::new()).await;
    let child = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &hook.addr, "--rate", "10"])
        .spawn_piped();
    let sent = || hook.requests.lock().unwrap().len();
    let limit = std::time::Duration::from_secs(30);
    crate::common::wait_until(limit, "a few events replayed", || sent() >= 3).await;
    let stderr = stopped_by(child, "-INT").await;
    let cursor = stderr
        .split("every filter) and --after ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no cursor: {stderr}"));
    let before = sent();
    assert!(before < 40, "stopped early: {before} sent");
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &hook.addr, "--after", cursor])
        .args(["--rate", "1000"])
        .run_async()
        .await;
    assert_eq!(r.code, OK, "{r:?}");
    let ids: Vec<(String, String)> = (hook.requests.lock().unwrap().iter())
        .map(|(h, _)| (h["forze_key"].clone(), h["idempotency-key"].clone()))
        .collect();
    assert_eq!(
        ids,
        keyed_events(&first),
        "every event once, in order ({before} before Ctrl-C)"
    );
}

/// A signal while a publish waits to be retried: no retry follows it, the replay stops at once
/// with its cursor (exit 130), and SIGTERM (`timeout`, an orchestrator) is heard as Ctrl-C is.
/// (Ctrl-C waited for every retry, a minute apart at most; SIGTERM killed it, no cursor.)
#[tokio::test]
async fn a_signal_ends_the_retries_of_a_refused_publish() {
    let test = test_name!();
    let (schema, _conn, cfg, _) = delivered(test, 10).await;
    // three events taken, then the fourth refused as a 503 for as long as it is tried
    let hook = hook([vec![200; 3], vec![503; 30]].concat()).await;
    let child = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &hook.addr, "--rate", "1000"])
        .args(["--retries", "12", "--yes"])
        .spawn_piped();
    let sent = || hook.requests.lock().unwrap().len();
    let limit = std::time::Duration::from_secs(30);
    crate::common::wait_until(limit, "the fourth event refused twice", || sent() >= 5).await;
    let stderr = stopped_by(child, "-TERM").await;
    assert!(stderr.contains("every filter) and --after "), "{stderr}");
    // its try and at most the retry under way when the signal came: not the thirteen
    let tries = sent() - 3;
    assert!(
        (2..=3).contains(&tries),
        "{tries} tries of the refused event: {stderr}"
    );
}
