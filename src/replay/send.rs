//! Sending one page of a replay: each message tried as [`Tries`] says, one key's messages one
//! after another and keys side by side (or all one at a time, paced), stopping on the first
//! failure or a halt (Ctrl-C).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use uuid::Uuid;

use super::{Item, KEYS_IN_FLIGHT, RETRY_WAIT, ReplayError, Tries};
use crate::Error;
use crate::destination::{self, Publisher};
use crate::model::Message;

/// Publishes one message, tried as `how` says, retries 200 ms apart and doubling: `Ok(true)`
/// acknowledged, `Ok(false)` left unsent (a halt came before a retry; the wait for one ends
/// within a tenth of a second of it), else the last try's error.
async fn publish(
    publisher: &Arc<dyn Publisher>,
    message: &Arc<Message>,
    how: Tries,
    halted: &dyn Fn() -> bool,
) -> Result<bool, destination::PublishError> {
    let mut tries = 0;
    loop {
        let limit = how.timeout.unwrap_or_else(|| publisher.default_timeout());
        let result = tokio::time::timeout(limit, publisher.publish(message.clone()))
            .await
            .unwrap_or_else(|_| {
                Err(destination::PublishError::timed_out(format!(
                    "no answer within {}",
                    crate::duration::Dur(limit)
                )))
            });
        match result {
            Err(e) if e.kind != destination::Refusal::Permanent && tries < how.retries => {
                tries += 1;
                // doubling, up to a minute between tries (a shift past 31 would overflow)
                let wait = RETRY_WAIT.saturating_mul(1 << (tries - 1).min(16));
                wait_unless(
                    halted,
                    tokio::time::Instant::now() + wait.min(Duration::from_secs(60)),
                )
                .await;
                if halted() {
                    return Ok(false);
                }
            }
            other => return other.map(|()| true),
        }
    }
}

/// Waits until `at`, or until `halted` (looked at every tenth of a second).
async fn wait_unless(halted: &dyn Fn() -> bool, at: tokio::time::Instant) {
    while !halted() && tokio::time::Instant::now() < at {
        let step = tokio::time::Instant::now() + Duration::from_millis(100);
        tokio::time::sleep_until(at.min(step)).await;
    }
}

/// How far behind its schedule a paced replay may fall and still catch up: a timer's
/// granularity (a millisecond or so per wait, more than the gap at a high rate) is made up
/// for, a stall (a slow page, a slow broker) is not.
const PACE_SLACK: Duration = Duration::from_millis(20);

/// Why event `i` of a page was not replayed.
pub(super) fn page_failure(page: &[Item], i: usize, e: &destination::PublishError) -> Error {
    let m = &page[i].message;
    Error::from(ReplayError::Publish {
        what: format!("publishing event {} of route {}", m.event_id, m.route),
        reason: e.to_string(),
    })
}

/// Publishes one page: how many from its start went out, acknowledged (all of it unless a
/// publish failed or `halt` was set, after which no publish starts), and the first failure
/// (its index and error).
pub(super) async fn publish_page(
    page: &[Item],
    publishers: &[Arc<dyn Publisher>],
    serial: bool,
    tries: Tries,
    mut paced: Option<(Duration, &mut Option<tokio::time::Instant>)>,
    halt: &AtomicBool,
) -> (usize, Option<(usize, destination::PublishError)>) {
    let halted = || halt.load(Ordering::SeqCst);
    if serial {
        for (i, item) in page.iter().enumerate() {
            // at most the rate: each send is due 1/rate after the one before it was, so the
            // sends keep to the rate on average; one more than PACE_SLACK behind is due now (a
            // stall is never made up for with a burst); a halt ends the wait
            if let Some((interval, last)) = paced.as_mut() {
                let now = tokio::time::Instant::now();
                let due = last.map_or(now, |l| l + *interval);
                let at = if now.saturating_duration_since(due) > PACE_SLACK {
                    now
                } else {
                    due
                };
                wait_unless(&halted, at).await;
                **last = Some(at);
            }
            if halted() {
                return (i, None);
            }
            match publish(&publishers[i], &item.message, tries, &halted).await {
                Ok(true) => {}
                Ok(false) => return (i, None),
                Err(e) => return (i, Some((i, e))),
            }
        }
        return (page.len(), None);
    }
    // One chain per key, in page order; chains run side by side. A broker keys a message by
    // its key alone, so one key's events go one at a time whatever their tenant, unless each
    // tenant has a channel of its own (as the relay keys them).
    let mut chains: Vec<Vec<usize>> = Vec::new();
    let mut chain_of: HashMap<(&str, Option<Uuid>, &str), usize> = HashMap::new();
    for (i, item) in page.iter().enumerate() {
        let m = &item.message;
        let tenant = m.tenant_id.filter(|_| publishers[i].channel_per_tenant());
        let k = (m.route.as_str(), tenant, m.key.as_str());
        let c = *chain_of.entry(k).or_insert_with(|| {
            chains.push(Vec::new());
            chains.len() - 1
        });
        chains[c].push(i);
    }
    let acknowledged: Vec<AtomicBool> = page.iter().map(|_| AtomicBool::new(false)).collect();
    let acknowledged = &acknowledged;
    let results: Vec<(usize, destination::PublishError)> = futures_util::stream::iter(chains)
        .map(|chain| async move {
            for i in chain {
                if halted() {
                    return None;
                }
                match publish(&publishers[i], &page[i].message, tries, &halted).await {
                    Ok(true) => acknowledged[i].store(true, Ordering::SeqCst),
                    Ok(false) => return None,
                    Err(e) => return Some((i, e)),
                }
            }
            None
        })
        .buffer_unordered(KEYS_IN_FLIGHT)
        .filter_map(|r| async move { r })
        .collect()
        .await;
    // the run of acknowledged events from the page's start (all of it unless halted or failed)
    let run = (acknowledged.iter())
        .position(|a| !a.load(Ordering::SeqCst))
        .unwrap_or(page.len());
    (run, results.into_iter().min_by_key(|(i, _)| *i))
}
