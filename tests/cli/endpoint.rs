//! The relay's HTTP endpoint under abuse: a descriptor limit of 128 and 300 idle connections to
//! the metrics address. The relay keeps relaying (a pass after a forced database reconnect, which
//! needs a descriptor, succeeds), `/healthz` answers within the header timeout plus a second, the
//! relay does not spin (under 10 % of a core over 3 s), `/metrics` is text that Prometheus'
//! own checker accepts, and a POST is refused (405).

use std::time::{Duration, Instant};

use crate::common::{
    PgSchema, config_file, eventually, free_port, lines, migrate, ob, out_file, stage, wait_until,
};

/// CPU seconds (user + system) a process has used, from `/proc/PID/stat`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the relay runs");
    let after_comm = stat.rsplit_once(") ").expect("a stat line").1;
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    // fields 14 and 15 of stat(5), counted from after the command name (field 3)
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf only reads a constant of the system.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// The local TCP ports of a process's sockets (its connections, as the server sees their client
/// ports), from `/proc/PID/fd` and `/proc/net/tcp`.
fn client_ports(pid: u32) -> Vec<i32> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            l.to_str()?
                .strip_prefix("socket:[")?
                .strip_suffix(']')
                .map(str::to_owned)
        })
        .collect();
    let tcp = std::fs::read_to_string("/proc/net/tcp").unwrap();
    tcp.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let port = i32::from_str_radix(f[1].rsplit_once(':')?.1, 16).ok()?;
            inodes.iter().any(|i| i == f[9]).then_some(port)
        })
        .collect()
}

/// promtool from Debian's prometheus package, as scripts/services.sh unpacks it.
fn promtool() -> std::path::PathBuf {
    let cache = std::env::var("OUTBOXCTL_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| {
            std::path::PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/outboxctl")
        });
    let bin = cache.join("promtool/usr/bin/promtool");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/services.sh, which unpacks it",
        bin.display()
    );
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_survives_a_flood_of_idle_connections_under_a_low_descriptor_limit() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let cfg = config_file(test, "relay:\n  interval: 200ms\n");
    let relay = ob(["relay", "--loop", "--route", "orders"])
        .pg(&t)
        .config(&cfg)
        .args(["--to", &format!("file:{}", path.display())])
        .args(["--metrics-addr", &addr, "--metrics-header-timeout", "2s"])
        .nofile_limit(128)
        .spawn(Some(&log));
    wait_until(Duration::from_secs(30), "the first 10 events", || {
        lines(&path).len() >= 10
    })
    .await;
    // 300 connections that never send a request
    let idle: Vec<std::net::TcpStream> = (0..300)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect to the metrics address"))
        .collect();
    let cpu_before = cpu_seconds(relay.pid());
    let watched = Instant::now();
    wait_until(Duration::from_secs(30), "3 s of watching the relay", || {
        watched.elapsed() >= Duration::from_secs(3)
    })
    .await;
    let share = (cpu_seconds(relay.pid()) - cpu_before) / watched.elapsed().as_secs_f64();
    assert!(
        share < 0.10,
        "the relay used {:.0} % of a core over 3 s with 300 idle connections",
        share * 100.0
    );
    // a probe among them still gets its answer in time
    let asked = Instant::now();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let health = client
        .get(format!("http://{addr}/healthz"))
        .send()
        .await
        .expect("/healthz answers");
    let took = asked.elapsed();
    assert_eq!(health.status().as_u16(), 200);
    assert!(
        took < Duration::from_secs(3),
        "/healthz took {took:?} (header timeout 2s + 1s)"
    );
    // the database connection cut: the relay reconnects (a new descriptor) and relays on
    let cut: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE client_port = ANY($1)",
    )
    .bind(client_ports(relay.pid()))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(cut >= 1, "the relay's database connection was found");
    stage(&mut conn, &t, "orders", 10, None).await;
    eventually(
        Duration::from_secs(30),
        "the events staged after the cut",
        async || {
            let n = lines(&path).len();
            if n >= 20 {
                Ok(())
            } else {
                Err(format!(
                    "{n} so far; relay log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                ))
            }
        },
    )
    .await;
    // what Prometheus scrapes is valid exposition text
    let metrics = client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut check = std::process::Command::new(promtool())
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut check.stdin.take().unwrap(), metrics.as_bytes()).unwrap();
    let out = check.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}\n{metrics}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // read-only: a POST is refused with what is allowed; HEAD is a GET without its body
    let posted = client
        .post(format!("http://{addr}/metrics"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status().as_u16(), 405);
    assert_eq!(posted.headers()["allow"], "GET, HEAD");
    let head = client
        .head(format!("http://{addr}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status().as_u16(), 200);
    drop(idle);
    assert!(relay.terminate().success());
}
