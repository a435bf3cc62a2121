//! Shared test set-up: server URLs, a schema or database per test (dropped when the test
//! passes, kept for inspection when it fails, in [`pg`] and [`mongo`]), and running the built
//! binary: [`ob`] builds a run (`ob(["inspect"]).pg(&t).code(OK).json()`), and the exit codes
//! are the library's constants.

pub mod brokers;
pub mod fixture;
pub mod mongo;
pub mod own_server;
pub mod pg;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use brokers::*;
pub use mongo::*;
pub use own_server::*;
pub use pg::*;

/// The documented exit codes (`outboxctl::exit_code`), as a process reports them.
pub const OK: i32 = outboxctl::exit_code::OK as i32;
pub const CHECK_FAILED: i32 = outboxctl::exit_code::CHECK_FAILED as i32;
pub const ERROR: i32 = outboxctl::exit_code::ERROR as i32;
pub const CONNECT: i32 = outboxctl::exit_code::CONNECT as i32;
pub const LOCK_BUSY: i32 = outboxctl::exit_code::LOCK_BUSY as i32;
pub const REFUSED: i32 = outboxctl::exit_code::REFUSED as i32;

/// `relay --once` of route `orders`, delivering nowhere (what a test needs when only the
/// outbox's side matters).
pub const RELAY_TO_NOWHERE: [&str; 6] = [
    "relay",
    "--once",
    "--route",
    "orders",
    "--to",
    "file:/dev/null",
];

/// `(id, rows)` of each failure group in `inspect failed --group --format json` output, in order.
pub fn group_counts(groups: &serde_json::Value) -> Vec<(String, i64)> {
    groups
        .as_array()
        .expect("a JSON array of groups")
        .iter()
        .map(|g| {
            (
                g["id"].as_str().unwrap().to_owned(),
                g["count"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The running test's path (`module::test_name`), for names of its own schema, database or
/// files: `PgSchema::new(test_name!())`.
macro_rules! test_name {
    () => {{
        fn here() {}
        let path = std::any::type_name_of_val(&here);
        path.trim_end_matches("::here")
            .trim_end_matches("::{{closure}}")
            .trim_start_matches("cli::")
    }};
}

pub fn pg_url() -> String {
    std::env::var("OUTBOXCTL_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

pub fn mongo_url() -> String {
    std::env::var("OUTBOXCTL_TEST_MONGO_URL")
        .unwrap_or_else(|_| "mongodb://127.0.0.1:27018/?replicaSet=rs0".to_owned())
}

/// A short, stable name for a test's own schema or database.
pub fn unique_name(test: &str) -> String {
    let mut h = DefaultHasher::new();
    test.hash(&mut h);
    format!("t_{:016x}", h.finish())
}

/// Runs `clean_up` to its end (on a thread of its own: a `Drop` may run inside a runtime) when
/// the test passed; when it failed, keeps `what` for inspection and says so.
pub fn clean_up_unless_failed<F: Future<Output = ()>>(
    what: &str,
    clean_up: impl FnOnce() -> F + Send + 'static,
) {
    if std::thread::panicking() {
        eprintln!("test failed: {what} kept for inspection");
        return;
    }
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(clean_up())
    })
    .join()
    .unwrap();
}

/// The result of running the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The check named `name` in a `doctor --format json` report (fails with the report when it
/// has none).
#[track_caller]
pub fn doctor_check<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("no checks in {report}"))
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {report}"))
}

impl Run {
    /// Standard output as one JSON document.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{self:?}"))
    }

    /// Standard output as JSON lines.
    #[track_caller]
    pub fn jsonl(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("a line is not JSON ({e}): {l:?}\n{self:?}"))
            })
            .collect()
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The built binary with a clean environment: no inherited OUTBOXCTL_*, OTEL_* or
/// DATABASE_URL, NO_COLOR set, run in an empty directory so no stray outboxctl.yaml is read.
fn outboxctl() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_outboxctl"));
    for (k, _) in std::env::vars() {
        if k.starts_with("OUTBOXCTL_") || k.starts_with("OTEL_") || k == "DATABASE_URL" {
            cmd.env_remove(k);
        }
    }
    cmd.env("NO_COLOR", "1");
    cmd.current_dir(std::env::temp_dir());
    cmd
}

/// A run of the binary, built up then run (see [`Ob`]).
pub fn ob<I, S>(args: I) -> Ob
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    Ob {
        cmd: outboxctl(),
        args: args.into_iter().map(|a| a.as_ref().to_owned()).collect(),
        stdin: None,
    }
}

/// One run of the binary: arguments, environment and input, then [`Ob::code`] (run and check
/// the exit code), [`Ob::run`] or [`Ob::spawn`]. As just's `Test`: a test reads as the command
/// it runs and what it expects.
#[must_use = "an Ob does nothing until it is run"]
pub struct Ob {
    cmd: Command,
    args: Vec<String>,
    stdin: Option<String>,
}

impl Ob {
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// The test PostgreSQL and an outbox relation (`schema.table`).
    pub fn pg(self, relation: &str) -> Self {
        self.args(["--database-url", &pg_url(), "--relation", relation])
    }

    /// The test MongoDB and an outbox collection (`db.collection`).
    pub fn mongo(self, collection: &str) -> Self {
        self.args(["--database-url", &mongo_url(), "--collection", collection])
    }

    /// A config file.
    pub fn config(self, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_str().expect("utf-8 path").to_owned();
        self.args(["--config", &path])
    }

    /// Runs it in `dir` (where it looks for `./outboxctl.yaml`); by default an empty directory.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Runs it with at most `n` open file descriptors (`ulimit -n n`).
    pub fn nofile_limit(mut self, n: u64) -> Self {
        use std::os::unix::process::CommandExt;
        let limit = libc::rlimit {
            rlim_cur: n,
            rlim_max: n,
        };
        // SAFETY: setrlimit is async-signal-safe, and `limit` is a plain value copied into the
        // closure; nothing else runs between fork and exec.
        unsafe {
            self.cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        self
    }

    /// Text on the binary's standard input (without it, stdin is empty: not a terminal).
    pub fn stdin(mut self, text: impl Into<String>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// Runs it to its end.
    pub fn run(mut self) -> Run {
        use std::io::Write;
        self.cmd
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("run outboxctl");
        let mut input = child.stdin.take().expect("piped");
        if let Some(text) = self.stdin {
            input.write_all(text.as_bytes()).expect("write stdin");
        }
        drop(input);
        Run::from(child.wait_with_output().expect("run outboxctl"))
    }

    /// Runs it to its end without blocking the test's runtime (so the test can do other
    /// things meanwhile, e.g. run two at once).
    pub async fn run_async(mut self) -> Run {
        self.cmd.args(&self.args).stdin(Stdio::null());
        let mut cmd = tokio::process::Command::from(self.cmd);
        // a test that gives up waiting (a timeout) leaves no process behind
        cmd.kill_on_drop(true);
        Run::from(cmd.output().await.expect("run outboxctl"))
    }

    /// Runs it and checks the exit code, showing the whole run when it differs.
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        let what = self.args.join(" ");
        let r = self.run();
        assert_eq!(r.code, expected, "outboxctl {what}\n{r:?}");
        r
    }

    /// Starts it with its stderr as a pipe the test reads (stdout discarded); the test owns
    /// the child.
    pub fn spawn_piped(mut self) -> std::process::Child {
        self.cmd
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn outboxctl")
    }

    /// Runs it with a stderr every write to fails, as to a pipe nobody reads any more (`2>&1 |
    /// jq` after jq quit): `/dev/full`, which fails each one at once, with no race against a
    /// reader's exit. Stdout discarded; its exit status.
    pub fn run_with_stderr_failing(mut self) -> std::process::ExitStatus {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        let writer = full.expect("/dev/full");
        (self.cmd.args(&self.args))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(writer)
            .status()
            .expect("run outboxctl")
    }

    /// Runs it to its end with a stdout whose reader already quit (`outboxctl … | head` after
    /// head exited): a pipe without its read end, so every write fails with EPIPE, with no race
    /// against a reader's exit.
    pub fn run_with_stdout_closed(mut self) -> Run {
        (self.cmd.args(&self.args))
            .stdin(Stdio::null())
            .stdout(readerless_pipe())
            .stderr(Stdio::piped());
        Run::from(self.cmd.output().expect("run outboxctl"))
    }

    /// Starts it with a stdout whose reader already quit (as above) and stderr to `log`;
    /// killed if the test ends first.
    pub fn spawn_with_stdout_closed(mut self, log: &Path) -> KillOnDrop {
        let stderr = std::fs::File::create(log).expect("create the log");
        KillOnDrop::new(
            (self.cmd.args(&self.args))
                .stdin(Stdio::null())
                .stdout(readerless_pipe())
                .stderr(stderr)
                .spawn()
                .expect("spawn outboxctl"),
        )
    }

    /// Starts it (stdout discarded, stderr to `log` when given); killed if the test ends first.
    pub fn spawn(mut self, log: Option<&Path>) -> KillOnDrop {
        let stderr = match log {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("create the log")),
            None => Stdio::null(),
        };
        KillOnDrop::new(
            self.cmd
                .args(&self.args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr)
                .spawn()
                .expect("spawn outboxctl"),
        )
    }
}

/// `emit -q` of `count` events of type `order.placed` with `payload` on `route`; add the
/// outbox and any other flags.
pub fn emit_events(route: &str, count: u32, payload: &str) -> Ob {
    let count = count.to_string();
    ob([
        "emit",
        "-q",
        "--route",
        route,
        "--type",
        "order.placed",
        "--payload",
        payload,
        "--count",
        &count,
    ])
}

/// Writes a config file of the test's own; returns its path.
pub fn config_file(test: &str, yaml: &str) -> String {
    let path = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", unique_name(test)));
    std::fs::create_dir_all(path.parent().expect("has a parent")).unwrap();
    std::fs::write(&path, yaml).unwrap();
    path.to_str().expect("utf-8 temp dir").to_owned()
}

/// Polls `check` every 20 ms until it returns `Ok`, failing the test after `limit` with `what`
/// and the last `Err` (what the condition looked like then). Every wait in the tests is this.
pub async fn eventually<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        match check().await {
            Ok(value) => return value,
            Err(seen) => assert!(
                Instant::now() < deadline,
                "timed out after {limit:?} waiting for {what}: {seen}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A spawned process that is killed when the test ends early (a panic), so a looping relay
/// never outlives its test and competes for the next run's rows.
pub struct KillOnDrop(Option<std::process::Child>);

impl KillOnDrop {
    pub fn new(child: std::process::Child) -> Self {
        Self(Some(child))
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.0.as_ref().expect("running").id()
    }

    /// SIGTERM (the relay's graceful drain), then its exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let mut child = self.0.take().expect("running");
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        child.wait().unwrap()
    }
}

impl KillOnDrop {
    /// SIGTERM, then its exit status if it exits within `limit` (`None`: still running; it is
    /// killed when dropped).
    pub async fn terminate_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let child = self.0.as_mut().expect("running");
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        self.exit_within(limit).await
    }

    /// Its exit status if it exits within `limit` (`None`: still running; it is killed when
    /// dropped).
    pub async fn exit_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let child = self.0.as_mut().expect("running");
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                self.0 = None;
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Polls `cond` until it holds, failing the test after `limit`.
pub async fn wait_until<F: FnMut() -> bool>(limit: Duration, what: &str, mut cond: F) {
    crate::common::eventually(limit, what, async || {
        if cond() {
            Ok(())
        } else {
            Err("not yet".into())
        }
    })
    .await
}

/// The write end of a pipe whose read end is closed: every write to it fails with EPIPE.
fn readerless_pipe() -> Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: pipe fills both descriptors when it succeeds.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: both descriptors were just made, and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

/// The seeds of a seeded randomized test named `NAME`: `OUTBOXCTL_<NAME>_SEED` replays one;
/// else `OUTBOXCTL_<NAME>_SEEDS` (default `default`) consecutive seeds from a random even one,
/// so that a test may give even and odd seeds a variant each.
pub fn seeds(name: &str, default: u64) -> Vec<u64> {
    use rand::Rng;
    let one = format!("OUTBOXCTL_{name}_SEED");
    if let Ok(s) = std::env::var(&one) {
        return vec![s.parse().unwrap_or_else(|_| panic!("{one} is a number"))];
    }
    let many = format!("OUTBOXCTL_{name}_SEEDS");
    let n: u64 = std::env::var(&many).map_or(default, |s| {
        s.parse().unwrap_or_else(|_| panic!("{many} is a number"))
    });
    assert!(n > 0, "{many}=0 would check nothing: give 1 or more");
    let first: u64 = rand::thread_rng().gen_range(0..1_000_000) * 2;
    (first..first + n).collect()
}
