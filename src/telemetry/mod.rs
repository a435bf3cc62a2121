//! OpenTelemetry traces of what outboxctl sends, so that a trace shows the hop between the
//! staging transaction and the consumer: a root span per relay pass (and per replay page) and a
//! `send` span per mark chunk (or webhook batch), linked to each message's stored
//! `traceparent`, which itself is forwarded unchanged (outboxctl never injects its own).
//!
//! Tracing is configured by the standard `OTEL_*` environment only (`setup`); while it is
//! off, every helper here costs one atomic load and allocates nothing, since the relay's
//! throughput must not notice it. No other module names an OpenTelemetry SDK type. The
//! process's log lines start here too (`logs`).

mod logs;
mod setup;
mod spans;

pub use logs::{error_line, init_logs, stderr_line, warning};
pub use opentelemetry::KeyValue;
pub use setup::{FLUSH_WITHIN, SEMCONV_VERSION, Wanted, init, shutdown, wanted};
pub use spans::{Parent, Root, SendTo, enabled, parse_traceparent, record_send};
