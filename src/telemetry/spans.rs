//! The spans outboxctl makes, after the messaging semantic conventions
//! ([`SEMCONV_VERSION`](super::SEMCONV_VERSION)): a [`Root`] per relay pass or replay page,
//! started only once the work holds something (no span for an empty pass) and dated from when
//! the work began; under it one `send <destination>` span (kind CLIENT) per group of messages
//! sent together, built once the send's outcome is known, with one link per message to the
//! `traceparent` it was staged with. Everything here is a no-op while tracing is off.

use std::borrow::Cow;
use std::future::Future;
use std::time::SystemTime;

use futures_util::future::Either;
use opentelemetry::trace::{
    FutureExt as _, Link, Span as _, SpanContext, SpanId, SpanKind, Status, TraceContextExt,
    TraceFlags, TraceId, TraceState, Tracer as _,
};
use opentelemetry::{Context, KeyValue};

use crate::model::Message;

/// Where a send goes, as the conventions name it: `messaging.system` and
/// `messaging.destination.name` (also the span's name: `send <name>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendTo<'a> {
    pub system: &'static str,
    pub name: Cow<'a, str>,
}

/// Whether tracing is on (one atomic load).
pub fn enabled() -> bool {
    super::setup::TRACER.get().is_some()
}

/// The root span of a pass or a replay page; nothing while tracing is off.
pub struct Root(Option<Box<RootState>>);

struct RootState {
    name: &'static str,
    began: SystemTime,
    /// The started span, once the work is known not to be empty.
    cx: Option<Context>,
    /// What log lines inside the work carry: `trace_id` and `span_id` once started.
    log: tracing::Span,
}

impl Root {
    /// The work begins (a pass: before its claim).
    pub fn begin(name: &'static str) -> Self {
        if !enabled() {
            return Self(None);
        }
        // at ERROR so that it is enabled wherever a log line can be
        let log = tracing::span!(
            tracing::Level::ERROR,
            "trace",
            trace_id = tracing::field::Empty,
            span_id = tracing::field::Empty
        );
        Self(Some(Box::new(RootState {
            name,
            began: SystemTime::now(),
            cx: None,
            log,
        })))
    }

    /// Whether tracing is on for this work (so attributes are worth building).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Now, where tracing is on: when a send begins.
    pub fn now(&self) -> Option<SystemTime> {
        self.0.as_ref().map(|_| SystemTime::now())
    }

    /// The span that log lines inside the work are written in (`Span::none()` while off).
    pub fn log_span(&self) -> tracing::Span {
        self.0
            .as_ref()
            .map_or_else(tracing::Span::none, |s| s.log.clone())
    }

    /// Starts the span, dated from [`Root::begin`]: the work holds something.
    pub fn start(&mut self, attributes: Vec<KeyValue>) {
        let (Some(state), Some(tracer)) = (self.0.as_mut(), super::setup::TRACER.get()) else {
            return;
        };
        if state.cx.is_some() {
            return;
        }
        let span = tracer
            .span_builder(state.name)
            .with_kind(SpanKind::Internal)
            .with_start_time(state.began)
            .with_attributes(attributes)
            .start_with_context(tracer, &Context::new());
        let sc = span.span_context().clone();
        if sc.is_sampled() {
            state
                .log
                .record("trace_id", tracing::field::display(sc.trace_id()));
            state
                .log
                .record("span_id", tracing::field::display(sc.span_id()));
        }
        state.cx = Some(Context::new().with_span(span));
    }

    /// Runs `future` with this span as the current context, so that a publisher that records
    /// its own sends ([`Parent::current`]) puts them under it.
    pub fn attach<F: Future>(&self, future: F) -> Either<opentelemetry::trace::WithContext<F>, F> {
        match self.0.as_ref().and_then(|s| s.cx.clone()) {
            Some(cx) => Either::Left(future.with_context(cx)),
            None => Either::Right(future),
        }
    }

    /// Records a send under this span (once it is started): `messages` are what was sent
    /// together, `error` the failure's `error.type` and description.
    pub fn send<'m>(
        &self,
        to: &SendTo<'_>,
        began: SystemTime,
        messages: impl IntoIterator<Item = &'m Message>,
        error: Option<(&'static str, &str)>,
    ) {
        if let Some(cx) = self.0.as_ref().and_then(|s| s.cx.as_ref()) {
            send_span(cx, to, began, messages, error);
        }
    }

    /// Ends the span with what the work did; `error` marks it failed.
    pub fn end(self, attributes: Vec<KeyValue>, error: Option<&str>) {
        let Some(cx) = self.0.and_then(|s| s.cx) else {
            return;
        };
        let span = cx.span();
        span.set_attributes(attributes);
        if let Some(e) = error {
            span.set_status(Status::error(e.to_owned()));
        }
        span.end();
    }
}

/// The span a publish was started under, for a publisher that records its own sends (a
/// batching webhook sends from a task of its own).
#[derive(Clone, Default)]
pub struct Parent(Option<Context>);

impl Parent {
    /// The current span, where tracing is on and one is current.
    pub fn current() -> Self {
        if !enabled() {
            return Self(None);
        }
        let cx = Context::current();
        Self(cx.has_active_span().then_some(cx))
    }

    /// Whether a send under it would be recorded.
    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }
}

/// Records a send made by a publisher under `parent` (nothing without one).
pub fn record_send<'m>(
    parent: &Parent,
    to: &SendTo<'_>,
    began: SystemTime,
    messages: impl IntoIterator<Item = &'m Message>,
    error: Option<(&'static str, &str)>,
) {
    if let Some(cx) = &parent.0 {
        send_span(cx, to, began, messages, error);
    }
}

fn send_span<'m>(
    parent: &Context,
    to: &SendTo<'_>,
    began: SystemTime,
    messages: impl IntoIterator<Item = &'m Message>,
    error: Option<(&'static str, &str)>,
) {
    let Some(tracer) = super::setup::TRACER.get() else {
        return;
    };
    let mut links = Vec::new();
    let mut count = 0usize;
    let mut single = None;
    for m in messages {
        count += 1;
        single = Some(m.event_id);
        let id = KeyValue::new("messaging.message.id", m.event_id.to_string());
        if let Some(sc) = m.header("traceparent").and_then(parse_traceparent) {
            links.push(Link::new(sc, vec![id], 0));
        }
    }
    if count == 0 {
        return;
    }
    let mut attributes = vec![
        KeyValue::new("messaging.system", to.system),
        KeyValue::new("messaging.destination.name", to.name.to_string()),
        KeyValue::new("messaging.operation.name", "send"),
        KeyValue::new("messaging.operation.type", "send"),
    ];
    match (count, single) {
        (1, Some(id)) => attributes.push(KeyValue::new("messaging.message.id", id.to_string())),
        _ => attributes.push(KeyValue::new("messaging.batch.message_count", count as i64)),
    }
    if let Some((kind, _)) = error {
        attributes.push(KeyValue::new("error.type", kind));
    }
    let mut span = tracer
        .span_builder(format!("send {}", to.name))
        .with_kind(SpanKind::Client)
        .with_start_time(began)
        .with_attributes(attributes)
        .with_links(links)
        .start_with_context(tracer, parent);
    if let Some((_, description)) = error {
        span.set_status(Status::error(description.to_owned()));
    }
    span.end();
}

/// A W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) as a remote span context; `None`
/// when it is not one (a link to it would be meaningless).
pub fn parse_traceparent(value: &str) -> Option<SpanContext> {
    let mut parts = value.trim().split('-');
    let (version, trace, span, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, len: usize| {
        s.len() == len
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    // version 00 has exactly four fields; a later version may add more
    if !hex(version, 2) || version == "ff" || (version == "00" && parts.next().is_some()) {
        return None;
    }
    if !hex(trace, 32) || !hex(span, 16) || !hex(flags, 2) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace).ok()?;
    let span_id = SpanId::from_hex(span).ok()?;
    let flags = u8::from_str_radix(flags, 16).ok()?;
    let sc = SpanContext::new(
        trace_id,
        span_id,
        TraceFlags::new(flags) & TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    );
    sc.is_valid().then_some(sc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_read_as_w3c_writes_it() {
        let sc =
            parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(
            sc.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(sc.span_id().to_string(), "00f067aa0ba902b7");
        assert!(sc.is_sampled() && sc.is_remote());
        let unsampled =
            parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").unwrap();
        assert!(!unsampled.is_sampled());
        // a later version may carry more fields
        assert!(
            parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")
                .is_some()
        );
        for wrong in [
            "",
            "garbage",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert!(parse_traceparent(wrong).is_none(), "{wrong}");
        }
    }

    #[test]
    fn nothing_is_made_while_tracing_is_off() {
        // the unit tests never call init
        let mut root = Root::begin("relay pass");
        assert!(!root.is_on() && root.now().is_none());
        root.start(vec![KeyValue::new("k", 1)]);
        assert!(root.log_span().is_none());
        assert!(!Parent::current().is_some());
        root.end(Vec::new(), None);
    }
}
