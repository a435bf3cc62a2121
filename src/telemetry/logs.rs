//! The process's log lines: to stderr, as text or JSON, filtered by `RUST_LOG` when set.

use tracing_subscriber::EnvFilter;

/// A line for a person on stderr. A stderr that is closed (`2>&1 | jq` after jq quit) loses it
/// rather than ending the process (`eprintln!` panics there: exit 101, a relay's registry row
/// left to go stale).
pub fn stderr_line(text: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Starts logging: `RUST_LOG` if set, else info (warn when `quiet`, debug from one `verbose`),
/// with colour only for `ansi` text.
pub fn init_logs(quiet: bool, verbose: u8, json: bool, ansi: bool) {
    // Broker clients log their own connection chatter; outboxctl reports what matters itself.
    let default = match (quiet, verbose) {
        (true, _) => "warn,lapin=off,async_nats=error",
        (false, 0) => "warn,outboxctl=info,lapin=off,async_nats=error",
        (false, 1) => "info,outboxctl=debug,lapin=warn",
        // async_nats's debug lines print the server's URL with its password
        (false, _) => "debug,async_nats=info",
    };
    let filter = EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // a log line stderr cannot take is lost, as stderr_line's are: the layer's own report of
    // it (`eprintln!`) would panic there, in whichever task logged
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .log_internal_errors(false)
        .with_target(false);
    let _ = match json {
        false => builder.with_ansi(ansi).try_init(),
        true => builder.json().flatten_event(true).try_init(),
    };
}
