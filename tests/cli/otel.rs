//! OpenTelemetry traces across the outbox hop, read by an OTLP/HTTP receiver of the test's own
//! that decodes the protobuf: a pass span as the root of one `send` span per mark chunk, the
//! messaging attributes, a link per message to the `traceparent` it was staged with; replay's
//! publishes likewise; nothing without an endpoint, when the environment turns tracing off or
//! when the sampler keeps nothing; a collector that is away changes neither the exit code nor,
//! much, the time to exit.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message as _;
use sqlx::postgres::PgConnection;

use crate::common::{OK, Ob, PgSchema, config_file, count, lines, migrate, ob, out_file, stage};

/// What the receiver was sent.
#[derive(Default)]
struct Seen {
    paths: Vec<String>,
    spans: Vec<Span>,
    service_names: BTreeSet<String>,
}

/// An OTLP/HTTP receiver on a port of its own: every POST is decoded as an
/// `ExportTraceServiceRequest` and answered 200.
struct Collector {
    endpoint: String,
    seen: Arc<Mutex<Seen>>,
}

impl Collector {
    fn start() -> Self {
        Self::on("127.0.0.1:0")
    }

    /// A collector on `addr` (`127.0.0.1:4318`: where the SDK sends by default).
    fn on(addr: &str) -> Self {
        let listener = TcpListener::bind(addr).unwrap_or_else(|e| {
            panic!("cannot listen on {addr} for a collector ({e}): free that port")
        });
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let shared = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let seen = shared.clone();
                std::thread::spawn(move || serve(stream, &seen));
            }
        });
        Self { endpoint, seen }
    }

    /// What was received since the last call.
    fn take(&self) -> Seen {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Seen>) {
    let mut out = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request = ExportTraceServiceRequest::decode(body.as_slice())
            .expect("the body is an OTLP ExportTraceServiceRequest");
        {
            let mut seen = seen.lock().unwrap();
            seen.paths.push(path);
            for rs in request.resource_spans {
                if let Some(Any::StringValue(name)) = rs
                    .resource
                    .as_ref()
                    .and_then(|r| attr(&r.attributes, "service.name"))
                {
                    seen.service_names.insert(name);
                }
                for ss in rs.scope_spans {
                    seen.spans.extend(ss.spans);
                }
            }
        }
        out.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n",
        )
        .unwrap();
    }
}

fn attr(attributes: &[KeyValue], key: &str) -> Option<Any> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.clone())
}

fn text(span: &Span, key: &str) -> Option<String> {
    match attr(&span.attributes, key) {
        Some(Any::StringValue(s)) => Some(s),
        _ => None,
    }
}

fn int(span: &Span, key: &str) -> Option<i64> {
    match attr(&span.attributes, key) {
        Some(Any::IntValue(n)) => Some(n),
        _ => None,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Gives every row without one a `traceparent` of its own; returns `(event id, trace id,
/// span id)` of every row.
async fn traceparents(conn: &mut PgConnection, t: &str) -> BTreeSet<(String, String, String)> {
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET traceparent = '00-' || md5(event_id::text) || '-' || substr(md5(id::text), 1, 16) || '-01'
          WHERE traceparent IS NULL"
    ))
    .execute(&mut *conn)
    .await
    .unwrap();
    let rows: Vec<(String, String)> =
        sqlx::query_as(&format!("SELECT event_id::text, traceparent FROM {t}"))
            .fetch_all(conn)
            .await
            .unwrap();
    rows.into_iter()
        .map(|(id, tp)| {
            let parts: Vec<&str> = tp.split('-').collect();
            (id, parts[1].to_owned(), parts[2].to_owned())
        })
        .collect()
}

/// `(event id, trace id, span id)` of every link of `spans`.
fn links(spans: &[&Span]) -> BTreeSet<(String, String, String)> {
    spans
        .iter()
        .flat_map(|s| &s.links)
        .map(|l| {
            let id = match attr(&l.attributes, "messaging.message.id") {
                Some(Any::StringValue(id)) => id,
                other => panic!("a link without the message id: {other:?}"),
            };
            (id, hex(&l.trace_id), hex(&l.span_id))
        })
        .collect()
}

fn relay_to(t: &str, out: &Path) -> Ob {
    ob([
        "relay",
        "--once",
        "--propagate-trace",
        "--route",
        "orders",
        "--to",
        &format!("file:{}", out.display()),
    ])
    .pg(t)
}

/// The spans of one run: the roots, and the sends under them (checked to be under them).
fn split(spans: &[Span]) -> (Vec<&Span>, Vec<&Span>) {
    let roots: Vec<&Span> = spans
        .iter()
        .filter(|s| s.parent_span_id.is_empty())
        .collect();
    let sends: Vec<&Span> = spans
        .iter()
        .filter(|s| !s.parent_span_id.is_empty())
        .collect();
    for send in &sends {
        assert!(
            roots
                .iter()
                .any(|r| r.span_id == send.parent_span_id && r.trace_id == send.trace_id),
            "a send outside every root: {send:?}"
        );
    }
    (roots, sends)
}

#[tokio::test]
async fn a_pass_is_the_root_of_a_send_span_per_mark_chunk_linked_to_the_staged_traceparents() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 40, None).await;
    let staged = traceparents(&mut conn, &t).await;
    let out = out_file(test);
    let collector = Collector::start();
    let started = Instant::now();
    relay_to(&t, &out)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .env("OTEL_SERVICE_NAME", "relay-under-test")
        .code(OK);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the spans go out at the exit, without waiting for the batch delay"
    );
    let seen = collector.take();
    assert!(
        seen.paths.iter().all(|p| p == "/v1/traces"),
        "{:?}",
        seen.paths
    );
    assert_eq!(
        seen.service_names,
        BTreeSet::from(["relay-under-test".to_owned()])
    );
    let (roots, sends) = split(&seen.spans);
    assert_eq!(roots.len(), 1, "one pass, one root: {roots:?}");
    let pass = roots[0];
    assert_eq!(pass.name, "relay pass");
    assert_eq!(pass.kind, SpanKind::Internal as i32);
    assert_eq!(text(pass, "outboxctl.route").as_deref(), Some("orders"));
    assert_eq!(int(pass, "outboxctl.pass.claimed"), Some(40));
    assert_eq!(int(pass, "outboxctl.pass.published"), Some(40));
    assert!(
        pass.start_time_unix_nano <= sends.iter().map(|s| s.start_time_unix_nano).min().unwrap()
    );

    let name = format!("send {}", out.display());
    let mut counts = Vec::new();
    for send in &sends {
        assert_eq!(send.name, name);
        assert_eq!(send.kind, SpanKind::Client as i32);
        assert_eq!(text(send, "messaging.system").as_deref(), Some("file"));
        assert_eq!(
            text(send, "messaging.destination.name"),
            Some(out.display().to_string())
        );
        assert_eq!(
            text(send, "messaging.operation.name").as_deref(),
            Some("send")
        );
        assert_eq!(
            text(send, "messaging.operation.type").as_deref(),
            Some("send")
        );
        assert_eq!(text(send, "error.type"), None);
        assert_eq!(
            text(send, "messaging.message.id"),
            None,
            "a batch has no one id"
        );
        counts.push(int(send, "messaging.batch.message_count").unwrap());
    }
    counts.sort();
    assert_eq!(counts, [8, 32], "a send span per mark chunk of at most 32");
    assert_eq!(
        links(&sends),
        staged,
        "a link per message to its traceparent"
    );

    // the stored traceparent is forwarded unchanged: outboxctl injects none of its own
    let forwarded: BTreeSet<String> = lines(&out)
        .iter()
        .map(|l| l["headers"]["traceparent"].as_str().unwrap().to_owned())
        .collect();
    let stored: BTreeSet<String> = staged
        .iter()
        .map(|(_, trace, span)| format!("00-{trace}-{span}-01"))
        .collect();
    assert_eq!(forwarded, stored);

    // one message: its id, no batch count; then a pass with nothing to claim makes no span
    stage(&mut conn, &t, "orders", 1, None).await;
    let all = traceparents(&mut conn, &t).await;
    let (new_id, ..) = all.difference(&staged).next().unwrap().clone();
    relay_to(&t, &out)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .code(OK);
    let seen = collector.take();
    let (roots, sends) = split(&seen.spans);
    assert_eq!((roots.len(), sends.len()), (1, 1), "{:?}", seen.spans);
    assert_eq!(text(sends[0], "messaging.message.id"), Some(new_id));
    assert_eq!(int(sends[0], "messaging.batch.message_count"), None);

    relay_to(&t, &out)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .code(OK);
    assert!(
        collector.take().spans.is_empty(),
        "an empty pass makes no span"
    );
}

#[tokio::test]
async fn log_lines_inside_a_pass_carry_its_trace_and_span_ids() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let collector = Collector::start();
    let r = relay_to(&t, &out_file(test))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .args(["-v", "--log-format", "json"])
        .code(OK);
    let seen = collector.take();
    let (roots, _) = split(&seen.spans);
    let (trace_id, span_id) = (hex(&roots[0].trace_id), hex(&roots[0].span_id));
    let inside: Vec<serde_json::Value> = r
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["span"]["trace_id"].is_string())
        .collect();
    assert!(
        !inside.is_empty(),
        "no log line inside the pass:\n{}",
        r.stderr
    );
    for line in inside {
        assert_eq!(line["span"]["trace_id"], trace_id.as_str(), "{line}");
        assert_eq!(line["span"]["span_id"], span_id.as_str(), "{line}");
    }
}

#[tokio::test]
async fn nothing_is_exported_unless_the_environment_turns_tracing_on() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    let collector = Collector::start();
    // with no endpoint set, the SDK's default one is listened on: a relay tracing by default
    // would send there
    let default = Collector::on("127.0.0.1:4318");
    let off: [&[(&str, &str)]; 4] = [
        &[],
        &[("OTEL_SDK_DISABLED", "true")],
        &[("OTEL_TRACES_EXPORTER", "none")],
        // on, but the sampler the SDK reads keeps nothing
        &[("OTEL_TRACES_SAMPLER", "always_off")],
    ];
    for vars in off {
        stage(&mut conn, &t, "orders", 5, None).await;
        let mut run = relay_to(&t, &out_file(test));
        if !vars.is_empty() {
            run = run.env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint);
        }
        for (k, v) in vars {
            run = run.env(k, v);
        }
        run.code(OK);
        let (seen, by_default) = (collector.take(), default.take());
        assert!(seen.spans.is_empty(), "{vars:?}: {:?}", seen.spans);
        assert!(
            by_default.spans.is_empty(),
            "{vars:?}: {:?}",
            by_default.spans
        );
    }
    // an endpoint without its scheme: the SDK would send to its default one, without a word
    stage(&mut conn, &t, "orders", 5, None).await;
    let r = relay_to(&t, &out_file(test))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:4318")
        .code(OK);
    assert!(
        r.stderr.contains(
            "tracing stays off: OTEL_EXPORTER_OTLP_ENDPOINT=\"127.0.0.1:4318\" is not an http(s) URL"
        ),
        "{}",
        r.stderr
    );
    assert!(default.take().spans.is_empty());
    // the traces endpoint alone turns it on
    stage(&mut conn, &t, "orders", 5, None).await;
    relay_to(&t, &out_file(test))
        .env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("{}/v1/traces", collector.endpoint),
        )
        .code(OK);
    assert_eq!(split(&collector.take().spans).0.len(), 1);
}

#[tokio::test]
async fn a_collector_that_is_away_changes_neither_the_exit_code_nor_much_the_time() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    // a closed port: every export is refused at once
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    // a collector that accepts and never answers
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let stalled = format!("http://{}", silent.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in silent.incoming() {
            held.push(s);
        }
    });
    for endpoint in [closed, stalled] {
        stage(&mut conn, &t, "orders", 40, None).await;
        let started = Instant::now();
        let r = relay_to(&t, &out_file(test))
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
            .code(OK);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{endpoint}: took {:?}\n{r:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn replay_publishes_are_traced_like_the_relays() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let cfg = config_file(
        test,
        "outbox:\n  replay_index: true\n  propagate_trace: true\nrelay:\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 34, Some(3)).await;
    let staged = traceparents(&mut conn, &t).await;
    ob(["relay", "--once", "--route", "orders"])
        .pg(&t)
        .config(&cfg)
        .code(OK);
    let again = out_file(test);
    let collector = Collector::start();
    ob(["replay", "--route", "orders", "--yes"])
        .args(["--to", &format!("file:{}", again.display())])
        .pg(&t)
        .config(&cfg)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .code(OK);
    let seen = collector.take();
    let (roots, sends) = split(&seen.spans);
    assert_eq!(roots.len(), 1, "one page: {roots:?}");
    assert_eq!(roots[0].name, "replay page");
    let mut counts: Vec<i64> = sends
        .iter()
        .map(|s| {
            assert_eq!(s.name, format!("send {}", again.display()));
            assert_eq!(s.kind, SpanKind::Client as i32);
            assert_eq!(text(s, "messaging.system").as_deref(), Some("file"));
            assert_eq!(text(s, "messaging.operation.type").as_deref(), Some("send"));
            int(s, "messaging.batch.message_count").unwrap()
        })
        .collect();
    counts.sort();
    assert_eq!(counts, [2, 32]);
    assert_eq!(links(&sends), staged);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batching_webhook_makes_a_send_span_per_post_failed_with_its_error_type() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 40, Some(40)).await;
    let staged = traceparents(&mut conn, &t).await;
    let server = crate::common::brokers::hook(vec![200, 500]).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}?token=secret\n      batch: 25\n",
            server.addr
        ),
    );
    let collector = Collector::start();
    ob(["relay", "--once", "--propagate-trace"])
        .pg(&t)
        .config(&cfg)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
        .code(OK);
    let posts: Vec<usize> = server
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|(h, _)| h["x-outboxctl-batch-size"].parse().unwrap())
        .collect();
    let seen = collector.take();
    let (roots, sends) = split(&seen.spans);
    assert_eq!(roots.len(), 1, "{roots:?}");
    assert_eq!(
        sends.len(),
        posts.len(),
        "a span per POST: {posts:?} {sends:?}"
    );
    let mut counts: Vec<usize> = Vec::new();
    let mut failed = 0;
    for s in &sends {
        assert_eq!(
            s.name,
            format!("send {}", server.addr),
            "no query in the name"
        );
        assert_eq!(s.kind, SpanKind::Client as i32);
        assert_eq!(text(s, "messaging.system").as_deref(), Some("http"));
        counts.push(int(s, "messaging.batch.message_count").unwrap_or(1) as usize);
        if let Some(kind) = text(s, "error.type") {
            assert_eq!(kind, "transient");
            failed += 1;
        }
    }
    counts.sort();
    let mut posted = posts.clone();
    posted.sort();
    assert_eq!(counts, posted);
    assert_eq!(failed, 1, "the POST answered 500");
    assert_eq!(links(&sends), staged);
}

#[tokio::test]
async fn a_table_destination_is_a_postgresql_send_failed_with_database_when_its_insert_fails() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--propagate-trace"]).await;
    let t = schema.rel("outbox");
    let sink = schema.rel("sink");
    sqlx::raw_sql(&format!(
        "CREATE TABLE {sink} (event_id UUID PRIMARY KEY, outbox_route TEXT NOT NULL, event_type TEXT NOT NULL, ordering_key TEXT,
            tenant_id UUID, payload JSONB NOT NULL, headers JSONB NOT NULL, published_at TIMESTAMPTZ NOT NULL)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    stage(&mut conn, &t, "orders", 3, None).await;
    let staged = traceparents(&mut conn, &t).await;
    let collector = Collector::start();
    let relay = || {
        ob(["relay", "--once", "--propagate-trace", "--route", "orders"])
            .args(["--to", &format!("postgres-table:{sink}")])
            .pg(&t)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint)
    };
    relay().code(OK);
    let seen = collector.take();
    let (roots, sends) = split(&seen.spans);
    assert_eq!((roots.len(), sends.len()), (1, 1), "{:?}", seen.spans);
    assert_eq!(sends[0].name, format!("send {sink}"));
    assert_eq!(
        text(sends[0], "messaging.system").as_deref(),
        Some("postgresql")
    );
    assert_eq!(int(sends[0], "messaging.batch.message_count"), Some(3));
    assert_eq!(links(&sends), staged);

    // an insert the table refuses: each send is failed with `database`, the chunk's and then
    // each row's (under retain a refused row gets an attempt, as a refused publish)
    sqlx::raw_sql(&format!(
        "ALTER TABLE {sink} ADD CHECK (event_type = 'never') NOT VALID"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    stage(&mut conn, &t, "orders", 2, None).await;
    relay().code(OK);
    let seen = collector.take();
    let (roots, sends) = split(&seen.spans);
    assert_eq!((roots.len(), sends.len()), (1, 3), "{:?}", seen.spans);
    for send in &sends {
        assert_eq!(text(send, "error.type").as_deref(), Some("database"));
    }
    let mut counts: Vec<Option<i64>> = sends
        .iter()
        .map(|s| int(s, "messaging.batch.message_count"))
        .collect();
    counts.sort();
    // one row's send names its message instead
    assert_eq!(
        counts,
        [None, None, Some(2)],
        "the chunk, then one row each"
    );
    let retried = format!("SELECT count(*) FROM {t} WHERE attempts = 1 AND status = 'pending'");
    assert_eq!(count(&mut conn, &retried).await, 2);
}
