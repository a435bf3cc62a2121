//! Publishing one chunk of a pass: a key's rows one at a time in claim order, different keys
//! concurrently, held back by strict order, cut by the pass's deadline.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futures_util::future::join_all;

use super::{Outcome, RelaySettings, publish_timeout};
use crate::destination::{PublishError, Publisher, Refusal};
use crate::model::{Message, OutboxRow};
use crate::relay::deadline::Deadline;

/// What [`publish_chunk`] works on.
pub(super) struct ChunkJob<'a> {
    pub publisher: &'a Arc<dyn Publisher>,
    pub rows: &'a [OutboxRow],
    pub messages: &'a [Option<Arc<Message>>],
    pub chunk: &'a [usize],
    pub settings: &'a RelaySettings,
    pub deadline: Deadline<'a>,
    pub strict: bool,
    pub blocked: &'a HashSet<(Option<uuid::Uuid>, String)>,
}

/// Publishes one chunk: rows of one message key (and channel) strictly in claim order, each
/// after the previous one is acknowledged, different keys concurrently (or everything in claim
/// order for a serial destination or `one_at_a_time`). Strict order's hold-back is per
/// (tenant, key), as its index is built. Once a publish finds the destination away, no other
/// publish of the chunk starts.
pub(super) async fn publish_chunk(job: ChunkJob<'_>) -> Vec<(usize, Outcome, Option<f64>)> {
    let ChunkJob {
        publisher,
        rows,
        messages,
        chunk,
        settings,
        deadline,
        strict,
        blocked,
    } = job;
    let timeout = publish_timeout(settings, publisher.as_ref());
    let away = AtomicBool::new(false);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    if publisher.serial() || settings.one_at_a_time {
        groups.push(chunk.to_vec());
    } else {
        // A broker keys a message by its message key alone (Kafka's record key, `forze_key`,
        // the stream entry's `key`), so rows of one key go one at a time whatever their
        // tenant, unless each tenant has a channel of its own.
        let per_tenant = publisher.channel_per_tenant();
        let mut by_key: HashMap<(Option<uuid::Uuid>, String), usize> = HashMap::new();
        for &i in chunk {
            let row = &rows[i];
            let key = (row.tenant_id.filter(|_| per_tenant), row.key());
            match by_key.get(&key) {
                Some(&g) => groups[g].push(i),
                None => {
                    by_key.insert(key, groups.len());
                    groups.push(vec![i]);
                }
            }
        }
    }
    let futures = groups.into_iter().map(|group| {
        let publisher = publisher.clone();
        let away = &away;
        async move {
            let mut out = Vec::with_capacity(group.len());
            let mut failed_keys: HashSet<(Option<uuid::Uuid>, String)> = HashSet::new();
            for i in group {
                // the key is a string of its own: made only where it is looked up or kept
                let held = strict && {
                    let key = rows[i].order_key();
                    blocked.contains(&key) || failed_keys.contains(&key)
                };
                if held {
                    out.push((i, Outcome::HeldBack, None));
                    continue;
                }
                let now = Instant::now();
                if deadline.passed(now) || away.load(Ordering::Relaxed) {
                    out.push((i, Outcome::NotReached, None));
                    continue;
                }
                let limit = deadline.bound(now + timeout);
                let message = messages[i].clone().expect("built");
                let publish = tokio::time::timeout_at(limit.into(), publisher.publish(message));
                let result = (deadline.unless_stopped(publish).await)
                    .and_then(Result::ok)
                    .unwrap_or_else(|| {
                        // the drain's cut says so (it read as the destination's slowness)
                        let why = match deadline.stopped_by(Instant::now()) {
                            true => "publish cut by the shutdown drain",
                            false => "publish timed out",
                        };
                        let took = now.elapsed().as_secs_f64();
                        Err(PublishError::timed_out(format!("{why} after {took:.3}s")))
                    });
                let seconds = Some(now.elapsed().as_secs_f64());
                match result {
                    Ok(()) => out.push((i, Outcome::Published, seconds)),
                    Err(e) => {
                        // away, or no answer: no other publish of the chunk starts
                        if matches!(e.kind, Refusal::Away | Refusal::TimedOut) {
                            away.store(true, Ordering::Relaxed);
                        }
                        if strict {
                            // strict order holds the key's later rows of the chunk back
                            failed_keys.insert(rows[i].order_key());
                        }
                        out.push((i, Outcome::Failed(e), seconds));
                    }
                }
            }
            out
        }
    });
    join_all(futures).await.into_iter().flatten().collect()
}
