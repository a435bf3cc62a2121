//! The `file:` destination when its disk fills or its reader stops: a full tmpfs counts no
//! attempt and leaves no partial line; a FIFO whose reader stops reading holds no pass past
//! its deadline, and every event arrives once it reads again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{
    PgSchema, assert_no_attempts, config_file, count, lines, migrate, ob, out_file,
    spawn_loop_relay, stage, wait_log, wait_rows, wait_until,
};

/// A small tmpfs of the test's own, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(test: &str, size: &str) -> Self {
        let dir = std::env::temp_dir().join(crate::common::unique_name(test));
        let _ = Command::new("umount").arg(&dir).status();
        std::fs::create_dir_all(&dir).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mounting a tmpfs at {} failed: the test needs root (CAP_SYS_ADMIN)",
            dir.display()
        );
        Self(dir)
    }

    /// Fills the file system until a write fails; the filler is `path`.
    fn fill(&self, path: &Path) {
        use std::io::Write;
        let mut f = std::fs::File::create(path).unwrap();
        let block = vec![b'x'; 4096];
        while f.write_all(&block).and_then(|()| f.sync_data()).is_ok() {}
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_on_a_full_disk_counts_no_attempt_and_leaves_no_partial_line() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let fs = Tmpfs::mount(test, "512k");
    let out = fs.0.join("events.jsonl");
    let filler = fs.0.join("filler");
    stage(&mut conn, &t, "orders", 20, Some(4)).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  max_attempts: 2\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            out.display()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 20).await;
    fs.fill(&filler);
    let full = Instant::now();
    stage(&mut conn, &t, "orders", 300, Some(4)).await;
    wait_log(&log, "destination down", 1).await;
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("No space left on device"),
        "the reason is logged"
    );
    wait_until(Duration::from_secs(30), "a full disk for 2s", || {
        full.elapsed() >= Duration::from_secs(2)
    })
    .await;
    std::fs::remove_file(&filler).unwrap();
    wait_rows(&mut conn, &published, 320).await;
    assert!(relay.terminate().success());
    assert_no_attempts(&mut conn, &t).await;
    // every line whole (a failed write was cut back), every event exactly once
    let written = lines(&out);
    let ids: HashSet<String> = written
        .iter()
        .map(|l| l["event_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!((written.len(), ids.len()), (320, 320));
}

/// Stdout whose reader quit (`relay --once | head` after head exited) is away, like a full
/// disk: no attempt is counted and nothing is parked (each row was retried, and parked at
/// `max_attempts`, the whole backlog in under a second); the summary says why, exit 1.
/// The same through `file:/dev/stdout` (it was opened as a reader too, so no write ever failed:
/// the pipe filled and the write waited).
#[tokio::test]
async fn stdout_whose_reader_quit_is_down_and_counts_no_attempt() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 300, None).await;
    for to in ["stdout", "\"file:/dev/stdout\""] {
        let cfg = config_file(
            test,
            &format!("relay:\n  max_attempts: 1\n  routes:\n    orders:\n      to: {to}\n"),
        );
        let r = (ob(["relay", "--once"]).pg(&t).config(&cfg)).run_with_stdout_closed();
        assert_eq!(r.code, 1, "{to}: {r:?}");
        assert!(
            r.stderr.contains("orders: destination down") && r.stderr.contains("its reader quit"),
            "{to}: {r:?}"
        );
        assert_no_attempts(&mut conn, &t).await;
        let pending = format!("SELECT count(*) FROM {t} WHERE status = 'pending'");
        assert_eq!(count(&mut conn, &pending).await, 300, "{to}");
    }
}

/// A looping relay whose stdout's reader quit stays down: every probe finds it so, and no row is
/// claimed again (a probe found it back, so each one claimed the backlog and released it).
#[tokio::test]
async fn a_looping_relay_whose_stdout_reader_quit_stays_down() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 30, None).await;
    for to in ["stdout", "\"file:/dev/stdout\""] {
        let cfg = config_file(
            test,
            &format!("relay:\n  interval: 50ms\n  routes:\n    orders:\n      to: {to}\n"),
        );
        let log = out_file(test).with_extension("log");
        let relay = (ob(["relay", "--loop"]).pg(&t).config(&cfg))
            .env("RUST_LOG", "outboxctl=debug")
            .spawn_with_stdout_closed(&log);
        wait_log(&log, "destination still down", 3).await;
        assert!(relay.terminate().success(), "{to}");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(!text.contains("destination is back"), "{to}: {text}");
        // the first pass found it away; none claimed again
        assert_eq!(text.matches("pass route=orders").count(), 1, "{to}: {text}");
        assert_no_attempts(&mut conn, &t).await;
        let pending = format!("SELECT count(*) FROM {t} WHERE status = 'pending'");
        assert_eq!(count(&mut conn, &pending).await, 30, "{to}");
    }
}

/// A FIFO that no process reads yet when the relay starts: the relay says so, the route waits
/// (no attempt counted, nothing written where no one reads), and every event arrives once a
/// reader opens it. (The relay opened it as a reader of its own: its lines filled the pipe,
/// counted delivered, for a reader that might never come.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_with_no_reader_yet_waits_for_one() {
    use std::io::BufRead;
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 50, Some(4)).await;
    let staged: HashSet<String> = crate::common::staged_event_ids(&mut conn, &t)
        .await
        .into_iter()
        .collect();
    let fifo = out_file(test).with_extension("fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {}", fifo.display());
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  max_attempts: 1\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            fifo.display()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    wait_log(&log, "a pipe no process reads", 2).await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("until a reader opens it"), "{text}");
    assert_no_attempts(&mut conn, &t).await;
    let pending = format!("SELECT count(*) FROM {t} WHERE status = 'pending'");
    wait_rows(&mut conn, &pending, 50).await;
    let reader = std::fs::File::open(&fifo).unwrap();
    let read = std::thread::spawn(move || {
        let lines = std::io::BufReader::new(reader).lines();
        let ids = lines.map(|l| {
            let line: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
            line["event_id"].as_str().unwrap().to_owned()
        });
        ids.collect::<HashSet<String>>()
    });
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 50).await;
    assert!(relay.terminate().success());
    assert_eq!(read.join().unwrap(), staged, "every event arrived");
    assert_no_attempts(&mut conn, &t).await;
    std::fs::remove_file(&fifo).unwrap();
}

/// A pipe whose reader stops reading (a FIFO here; stdout piped to a stuck consumer alike)
/// holds the relay's write for as long as it likes. Under consume the pass stops waiting at its
/// deadline, inside its transaction's idle limit, and commits; the destination is down while
/// the write waits (the route claims nothing meanwhile); once the reader reads again every
/// event arrives and nothing is parked. (The write used to block the relay whole, and the
/// server ended the pass's session at its idle limit.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipe_whose_reader_stops_holds_no_pass_past_its_deadline() {
    use std::io::BufRead;
    use std::os::unix::fs::OpenOptionsExt;
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    // lines of about 1 KiB: far more than a pipe holds (64 KiB)
    stage(&mut conn, &t, "orders", 300, Some(4)).await;
    let pad = format!("UPDATE {t} SET payload = jsonb_build_object('pad', repeat('x', 1000))");
    sqlx::raw_sql(&pad).execute(&mut conn).await.unwrap();
    let staged: HashSet<String> = crate::common::staged_event_ids(&mut conn, &t)
        .await
        .into_iter()
        .collect();
    let fifo = out_file(test).with_extension("fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {}", fifo.display());
    // a reader that reads nothing yet
    let idle_reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let cfg = config_file(
        test,
        &format!(
            "outbox:\n  storage: consume\nrelay:\n  interval: 100ms\n  pass_deadline: 1s\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            fifo.display()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    wait_log(&log, "has not taken the last write yet", 1).await;
    // the reader reads again: every line, until the relay closes the pipe
    let reader = std::fs::File::open(&fifo).unwrap();
    drop(idle_reader);
    let read = std::thread::spawn(move || {
        let lines = std::io::BufReader::new(reader).lines();
        let ids = lines.map(|l| {
            let line: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
            line["event_id"].as_str().unwrap().to_owned()
        });
        ids.collect::<HashSet<String>>()
    });
    let left = format!("SELECT count(*) FROM {t}");
    crate::common::eventually(
        Duration::from_secs(60),
        "the outbox drained",
        async || match count(&mut conn, &left).await {
            0 => Ok(()),
            n => Err(format!("{n} rows left")),
        },
    )
    .await;
    assert!(relay.terminate().success());
    let received = read.join().unwrap();
    assert_eq!(received, staged, "every event arrived");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !["idle-in-transaction", "pass failed", "database is away"]
            .iter()
            .any(|bad| text.contains(bad)),
        "every pass committed within its limits:\n{text}"
    );
    std::fs::remove_file(&fifo).unwrap();
}

/// `discard --save` onto a disk that fills during the second batch: the first batch was kept
/// and discarded, the second is neither, and the error says how many rows went before it (the
/// run ended on the error with nothing said of the 500 discarded).
#[tokio::test]
async fn discard_save_onto_a_disk_that_fills_says_what_went_before() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 701, None).await;
    let failed = format!("UPDATE {t} SET status = 'failed', last_error = 'x'");
    sqlx::raw_sql(&failed).execute(&mut conn).await.unwrap();
    let discard = |to: &Path, extra: &[&str]| {
        let mut args = vec!["discard", "--all", "--yes", "--save"];
        args.push(to.to_str().unwrap());
        args.extend(extra);
        ob(args).pg(&t).run()
    };
    // one row's line, to size the room left on the disk
    let one = out_file(test).with_extension("one.jsonl");
    let _ = std::fs::remove_file(&one);
    let first: String = sqlx::query_scalar(&format!("SELECT id::text FROM {t} LIMIT 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let r = ob([
        "discard",
        "--yes",
        "--id",
        &first,
        "--save",
        one.to_str().unwrap(),
    ])
    .pg(&t)
    .run();
    assert_eq!(r.code, crate::common::OK, "{r:?}");
    let line = std::fs::metadata(&one).unwrap().len() + 4;
    std::fs::remove_file(&one).unwrap();
    // room for the first batch of 500 and a few lines more, not for the second's 200
    let fs = Tmpfs::mount(test, "4m");
    let filler = fs.0.join("filler");
    fs.fill(&filler);
    let room = (line * 510).div_ceil(4096) * 4096;
    let full = std::fs::metadata(&filler).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&filler)
        .unwrap()
        .set_len(full - room)
        .unwrap();
    let copy = fs.0.join("copy.jsonl");
    let r = discard(&copy, &[]);
    assert_eq!(r.code, crate::common::ERROR, "{r:?}");
    let said =
        "(none of this batch was discarded; the 500 row(s) discarded before it are in the file)";
    assert!(r.stderr.contains(said), "{r:?}");
    assert_eq!(lines(&copy).len(), 500);
    let left = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'failed'"),
    )
    .await;
    assert_eq!(left, 200, "the second batch is still there");
}
