//! A replay page's spans (see [`crate::telemetry`]): the page span, and one `send` span per run
//! of at most 32 consecutive events going to one destination, as the relay traces its mark
//! chunks. A no-op while tracing is off.

use std::sync::Arc;
use std::time::SystemTime;

use super::Item;
use crate::destination::{PublishError, Publisher};
use crate::telemetry::Root;

/// At most this many events per send span (the relay's mark chunk).
const SEND_SPAN_MAX: usize = 32;

/// How a page's publishes ended: the first `done` went out; the next one failed with
/// `failed`; `flush` is a destination whose flush failed, with its error.
pub(super) struct PageOutcome<'a> {
    pub done: usize,
    pub failed: Option<&'a PublishError>,
    pub flush: Option<(&'a Arc<dyn Publisher>, &'a PublishError)>,
}

/// One send span per run of consecutive events of one destination (at most
/// [`SEND_SPAN_MAX`]), over what was sent: the events that went out and the one that failed.
pub(super) fn page_sends(
    trace: &Root,
    began: SystemTime,
    page: &[Item],
    publishers: &[Arc<dyn Publisher>],
    outcome: &PageOutcome<'_>,
) {
    let sent = (outcome.done + usize::from(outcome.failed.is_some())).min(page.len());
    let mut start = 0;
    while start < sent {
        let publisher = &publishers[start];
        let mut end = start + 1;
        while end < sent && end - start < SEND_SPAN_MAX && Arc::ptr_eq(&publishers[end], publisher)
        {
            end += 1;
        }
        if !publisher.traces_sends() {
            let error = match (outcome.failed, outcome.flush) {
                (Some(e), _) if end > outcome.done => Some(e),
                (_, Some((p, e))) if Arc::ptr_eq(p, publisher) => Some(e),
                _ => None,
            };
            let error = error.map(|e| (e.kind.error_type(), e.message.as_str()));
            let messages = page[start..end].iter().map(|item| &*item.message);
            trace.send(&publisher.messaging(), began, messages, error);
        }
        start = end;
    }
}
