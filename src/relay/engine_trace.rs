//! A pass's spans (see [`crate::telemetry`]): the pass span, started once its claim held
//! something and ended with what the pass did, and one `send` span per mark chunk of what was
//! published. A child of the engine so that its outcomes are at hand; a no-op while tracing
//! is off.

use std::sync::Arc;
use std::time::SystemTime;

use super::{MARK_CHUNK, Outcome, PassReport};
use crate::model::Message;
use crate::store::PassTarget;
use crate::telemetry::{KeyValue, Root, SendTo};

/// The pass begins (before its claim).
pub(super) fn begin() -> Root {
    Root::begin("relay pass")
}

/// Starts the pass's span when its claim held something: an empty pass makes no span.
pub(super) fn claimed(trace: &mut Root, target: &PassTarget, report: &PassReport) {
    if !trace.is_on() || report.claimed == 0 {
        return;
    }
    let mut attributes = vec![
        KeyValue::new("outboxctl.route", target.route.clone()),
        KeyValue::new("outboxctl.pass.claimed", report.claimed as i64),
    ];
    if let Some(tenant) = target.tenant {
        attributes.push(KeyValue::new("outboxctl.tenant_id", tenant.to_string()));
    }
    trace.start(attributes);
}

/// One send span per mark chunk of `chunk`: the messages that were sent (published or
/// refused; not those held back or not reached), failed with the chunk's first refusal.
pub(super) fn chunk_sends(
    trace: &Root,
    to: &SendTo<'_>,
    began: SystemTime,
    chunk: &[usize],
    messages: &[Option<Arc<Message>>],
    outcomes: &[Outcome],
) {
    for part in chunk.chunks(MARK_CHUNK) {
        let error = part.iter().find_map(|&i| match &outcomes[i] {
            Outcome::Failed(e) => Some((e.kind.error_type(), e.message.as_str())),
            _ => None,
        });
        let sent = part
            .iter()
            .filter(|&&i| matches!(outcomes[i], Outcome::Published | Outcome::Failed(_)))
            .filter_map(|&i| messages[i].as_deref());
        trace.send(to, began, sent, error);
    }
}

/// Logs a pass that claimed something (at debug, inside its span: with its ids while tracing),
/// then ends the pass's span with what the pass did; a pass that rolled back is failed.
pub(super) fn end(trace: Root, report: &PassReport, target: &PassTarget, log: &tracing::Span) {
    if report.claimed > 0 {
        let (claimed, published) = (report.claimed, report.published);
        log.in_scope(|| tracing::debug!(route = %target, claimed, published, "pass"));
    }
    if !trace.is_on() {
        return;
    }
    let count = |n: usize| n as i64;
    let attributes = vec![
        KeyValue::new("outboxctl.pass.published", count(report.published)),
        KeyValue::new("outboxctl.pass.retried", count(report.retried)),
        KeyValue::new("outboxctl.pass.failed", count(report.failed)),
        KeyValue::new("outboxctl.pass.untouched", count(report.untouched)),
        KeyValue::new("outboxctl.pass.committed", report.committed),
    ];
    trace.end(attributes, report.error.as_deref());
}
