//! Whether tracing is on, and the exporter behind it. Only the standard environment decides:
//! an OTLP endpoint must be named (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT`), and
//! neither `OTEL_TRACES_EXPORTER=none` nor `OTEL_SDK_DISABLED=true` may be set (the Rust SDK
//! reads neither of the last two, so this module does). The SDK itself reads the endpoint,
//! headers, timeout, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER(_ARG)`
//! and `OTEL_BSP_*`. Spans go as OTLP http/protobuf through a blocking client: since
//! opentelemetry_sdk 0.28 the batch processor exports from a thread of its own, where a client
//! needing the tokio reactor would drop every span silently.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

/// The messaging semantic conventions the spans follow (still marked Development upstream).
pub const SEMCONV_VERSION: &str = "1.36.0";

/// The most the exit waits for the last spans to reach the collector: a collector that is
/// away neither delays the exit by more nor changes its code.
pub const FLUSH_WITHIN: Duration = Duration::from_secs(2);

/// How long building the exporter may take (it takes milliseconds).
const BUILD_WITHIN: Duration = Duration::from_secs(5);

pub(super) static TRACER: OnceLock<SdkTracer> = OnceLock::new();
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// What the environment asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub on: bool,
    /// What is set but cannot be honoured (told once tracing starts).
    pub warnings: Vec<String>,
}

/// Reads the environment (`env` returns a variable's value): tracing is on if and only if an
/// OTLP endpoint is set, `OTEL_TRACES_EXPORTER` is not `none` and `OTEL_SDK_DISABLED` is not
/// `true`.
pub fn wanted(env: &dyn Fn(&str) -> Option<String>) -> Wanted {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let endpoint = [
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
    ]
    .into_iter()
    .find_map(|name| set(name).map(|value| (name, value)));
    let disabled = set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let exporters = set("OTEL_TRACES_EXPORTER").unwrap_or_else(|| "otlp".into());
    let exporters: Vec<String> = exporters
        .split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    let none = exporters.iter().any(|e| e == "none");
    let mut warnings: Vec<String> = exporters
        .iter()
        .filter(|e| *e != "otlp" && *e != "none")
        .map(|e| format!("OTEL_TRACES_EXPORTER names {e}, which outboxctl does not have: spans go to OTLP only"))
        .collect();
    let protocol = set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .map(|p| ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", p))
        .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL").map(|p| ("OTEL_EXPORTER_OTLP_PROTOCOL", p)));
    if let Some((name, p)) = protocol.filter(|(_, p)| p.trim() != "http/protobuf") {
        warnings.push(format!(
            "{name}={p} is not supported: spans are sent as http/protobuf"
        ));
    }
    let Some((name, value)) = endpoint.filter(|_| !disabled && !none) else {
        return Wanted {
            on: false,
            warnings: Vec::new(),
        };
    };
    // the SDK would send elsewhere (the general endpoint, else localhost:4318) without a word
    if let Some(why) = not_http(&value) {
        let value = crate::dburl::mask(value.trim());
        return Wanted {
            on: false,
            warnings: vec![format!(
                "tracing stays off: {name}={value:?} is not an http(s) URL ({why}); write e.g. http://collector:4318"
            )],
        };
    }
    Wanted { on: true, warnings }
}

/// Why an OTLP endpoint is not an http(s) URL spans can be posted to, if it is not.
fn not_http(value: &str) -> Option<String> {
    // the SDK parses the variable as it is: white space around it is not an endpoint
    if value.trim() != value {
        return Some("white space around it".into());
    }
    match url::Url::parse(value) {
        Err(e) => Some(e.to_string()),
        Ok(u) if !matches!(u.scheme(), "http" | "https") => {
            Some(format!("the scheme is {:?}", u.scheme()))
        }
        Ok(u) if u.host_str().is_none_or(str::is_empty) => Some("no host".into()),
        Ok(_) => None,
    }
}

/// Starts tracing when the environment asks for it; a wrong setting warns and leaves it off,
/// never stopping the command.
pub fn init() {
    let env = |name: &str| std::env::var(name).ok();
    let wanted = wanted(&env);
    for w in &wanted.warnings {
        tracing::warn!("{w}");
    }
    if !wanted.on {
        return;
    }
    // built on a thread of its own, waited for a bounded time: its HTTP client starts a
    // runtime thread and waits for it, and once (in hundreds of runs) waited for ever, the
    // relay never starting; the command goes on untraced instead
    let (built, building) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("otlp-exporter-build".into());
    let _ = spawned.spawn(move || {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build();
        let _ = built.send(exporter);
    });
    let exporter = match building.recv_timeout(BUILD_WITHIN) {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => {
            tracing::warn!("tracing stays off: the OTLP exporter cannot be built: {e}");
            return;
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            tracing::warn!(
                "tracing stays off: the OTLP exporter was not built within {}",
                crate::duration::Dur(BUILD_WITHIN)
            );
            return;
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            tracing::warn!(
                "tracing stays off: building the OTLP exporter failed (its thread ended)"
            );
            return;
        }
    };
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource(&env))
        .build();
    let scope = opentelemetry::InstrumentationScope::builder("outboxctl")
        .with_version(env!("CARGO_PKG_VERSION"))
        .with_schema_url(format!(
            "https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
        ))
        .build();
    let tracer = provider.tracer_with_scope(scope);
    if PROVIDER.set(provider).is_ok() {
        let _ = TRACER.set(tracer);
    }
}

/// The resource: the SDK's (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `telemetry.sdk.*`),
/// with `service.name` `outboxctl` and `service.version` where the environment names neither.
fn resource(env: &dyn Fn(&str) -> Option<String>) -> Resource {
    let given = env("OTEL_RESOURCE_ATTRIBUTES").unwrap_or_default();
    let names = |key: &str| {
        given
            .split(',')
            .any(|kv| kv.split('=').next().is_some_and(|k| k.trim() == key))
    };
    let mut builder = Resource::builder();
    if env("OTEL_SERVICE_NAME").is_none_or(|n| n.trim().is_empty()) && !names("service.name") {
        builder = builder.with_service_name("outboxctl");
    }
    if !names("service.version") {
        builder =
            builder.with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
    }
    builder.build()
}

/// Sends what is still queued, within [`FLUSH_WITHIN`], and stops tracing: at the exit of
/// every command that traced (after `--once`, and after the drain that SIGTERM starts).
pub fn shutdown() {
    if let Some(provider) = PROVIDER.get() {
        if let Err(e) = provider.shutdown_with_timeout(FLUSH_WITHIN) {
            tracing::debug!("the last spans may not have been exported: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Wanted {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        wanted(&move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn tracing_is_on_only_with_an_endpoint_and_nothing_turning_it_off() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let traces = (
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://c:4318/v1/traces",
        );
        assert!(!with(&[]).on);
        assert!(!with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]).on);
        assert!(with(&[endpoint]).on);
        assert!(with(&[traces]).on);
        assert!(!with(&[endpoint, ("OTEL_TRACES_EXPORTER", "none")]).on);
        assert!(!with(&[traces, ("OTEL_TRACES_EXPORTER", "otlp,None")]).on);
        assert!(!with(&[endpoint, ("OTEL_SDK_DISABLED", "TRUE")]).on);
        assert!(with(&[endpoint, ("OTEL_SDK_DISABLED", "false")]).on);
        assert!(with(&[endpoint, ("OTEL_TRACES_EXPORTER", "otlp")]).on);
    }

    #[test]
    fn what_cannot_be_honoured_is_told() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        let w = with(&[endpoint, ("OTEL_TRACES_EXPORTER", "otlp,zipkin")]);
        assert!(w.on);
        assert_eq!(w.warnings.len(), 1, "{w:?}");
        assert!(w.warnings[0].contains("zipkin"), "{w:?}");
        let w = with(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        assert!(w.on && w.warnings[0].contains("grpc"), "{w:?}");
        let w = with(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
        ]);
        assert!(w.warnings.is_empty(), "{w:?}");
        // an endpoint the SDK cannot post to is told, and tracing stays off (the SDK would send
        // to localhost:4318 instead); the password is masked
        for (name, value, why) in [
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "collector:4318",
                "the scheme is \"collector\"",
            ),
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://",
                "empty host",
            ),
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                " http://c:4318",
                "white space around it",
            ),
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "grpc://u:s3cret@c:4317",
                "the scheme is \"grpc\"",
            ),
        ] {
            let w = with(&[(name, value)]);
            assert!(!w.on, "{w:?}");
            assert_eq!(w.warnings.len(), 1, "{w:?}");
            assert!(
                w.warnings[0].contains(name) && w.warnings[0].contains(why),
                "{w:?}"
            );
            assert!(!w.warnings[0].contains("s3cret"), "{w:?}");
        }
        // the endpoint meant is the traces one: a good general one does not stand in for it
        let w = with(&[
            endpoint,
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "c:4318/v1/traces"),
        ]);
        assert!(!w.on && w.warnings[0].contains("TRACES_ENDPOINT"), "{w:?}");
        // nothing is told while tracing is off
        assert!(
            with(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "x"),
                ("OTEL_SDK_DISABLED", "true")
            ])
            .warnings
            .is_empty()
        );
        assert!(
            with(&[("OTEL_TRACES_EXPORTER", "zipkin")])
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn the_service_is_named_outboxctl_unless_the_environment_names_it() {
        let name = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            let r = resource(&move |n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()));
            r.get(&opentelemetry::Key::new("service.name"))
                .map(|v| v.to_string())
        };
        // the SDK reads the real environment for the rest: this test needs it silent
        for var in ["OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"] {
            assert!(
                std::env::var_os(var).is_none(),
                "the OpenTelemetry SDK reads {var} from the environment: unset it to run this test"
            );
        }
        assert_eq!(name(&[]).as_deref(), Some("outboxctl"));
        for named in [
            ("OTEL_SERVICE_NAME", "billing"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=prod, service.name=billing",
            ),
        ] {
            assert_ne!(name(&[named]).as_deref(), Some("outboxctl"), "{named:?}");
        }
    }
}
