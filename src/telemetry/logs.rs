//! The process's log lines: to stderr, as text or JSON, filtered by `RUST_LOG` when set.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// A line for a person on stderr. A stderr that is closed (`2>&1 | jq` after jq quit) loses it
/// rather than ending the process (`eprintln!` panics there: exit 101, a relay's registry row
/// left to go stale).
pub fn stderr_line(text: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Log lines are JSON objects (`--log-format json`): a warning for a person is one of them.
static JSON_LINES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A warning for a person on stderr, even with `-q`: a `warning:` line (`color`: its word in
/// yellow), or under JSON logs a log line at warn level (a log shipper reading them broke on a
/// line of text).
pub fn warning(text: &str, color: bool) {
    if JSON_LINES.load(std::sync::atomic::Ordering::Relaxed) {
        tracing::warn!("{text}");
    } else if color {
        stderr_line(format_args!("\x1b[33mwarning:\x1b[0m {text}"));
    } else {
        stderr_line(format_args!("warning: {text}"));
    }
}

/// A command's last word on stderr, always (`-q` and `RUST_LOG` too): `error: {text}`, or under
/// JSON logs a log line at error level, written as the log layer writes one (the line that
/// tells why a relay's pod crash-loops was the one a JSON log pipeline could not read).
pub fn error_line(text: &str) {
    if JSON_LINES.load(std::sync::atomic::Ordering::Relaxed) {
        let line = serde_json::json!({
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "level": "ERROR",
            "message": text,
        });
        stderr_line(format_args!("{line}"));
    } else {
        stderr_line(format_args!("error: {text}"));
    }
}

/// Starts logging: `RUST_LOG` if set, else info (warn when `quiet`, debug from one `verbose`),
/// with colour only for `ansi` text.
pub fn init_logs(quiet: bool, verbose: u8, json: bool, ansi: bool) {
    JSON_LINES.store(json, std::sync::atomic::Ordering::Relaxed);
    // Broker clients log their own connection chatter; outboxctl reports what matters itself.
    let default = match (quiet, verbose) {
        (true, _) => "warn,lapin=off,async_nats=error",
        (false, 0) => "warn,outboxctl=info,lapin=off,async_nats=error",
        (false, 1) => "info,outboxctl=debug,lapin=warn",
        // async_nats's debug lines print the server's URL with its password
        (false, _) => "debug,async_nats=info",
    };
    let filter = EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // async_nats's debug and trace lines print its URL and CONNECT with the password: never
    // shown, whatever RUST_LOG asks (a static filter: each call site's interest is settled
    // once, off the hot path). Its default is the filter's own most verbose level: the two
    // stand as global layers, whose hints combine by the widest, and a TRACE default would
    // raise the `log` crate's maximum to TRACE, each `log::trace!` of the drivers
    // (tokio-postgres's at every poll) built before it is filtered out.
    let most = filter.max_level_hint().unwrap_or(LevelFilter::TRACE);
    let cap = Targets::new()
        .with_default(most)
        .with_target("async_nats", LevelFilter::INFO.min(most));
    // a log line stderr cannot take is lost, as stderr_line's are: the layer's own report of
    // it (`eprintln!`) would panic there, in whichever task logged
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .log_internal_errors(false)
        .with_target(false);
    let layer: Box<dyn Layer<Registry> + Send + Sync> = match json {
        false => layer.with_ansi(ansi).boxed(),
        true => layer.json().flatten_event(true).boxed(),
    };
    // Both filters stand over the whole subscriber (one layer: the same lines), not as the
    // layer's own: so filtered (tracing-subscriber's per-layer filters), a looping relay whose
    // Kafka broker was down at start lost its `route ready` lines, and only under a RUST_LOG
    // naming a target, as the default does.
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .with(cap)
        .try_init();
}
