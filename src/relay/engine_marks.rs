//! The end of a retain or consume pass: the rows it did not publish get what their outcome
//! asks, retries grouped by their new attempt count, parks (through the dead-letter
//! destination first), and the rows never reached named to hand back untouched.

use chrono::{DateTime, Utc};
use rand::Rng;

use super::{Outcome, PassReport, RelaySettings};
use crate::destination::Refusal;
use crate::model::OutboxRow;
use crate::relay::backoff::{self, RetryDecision};
use crate::relay::dead_letter::{Parking, dead_letter_first};
use crate::store::{PassTarget, RelayStore, StoreError};

/// Whose rows a pass's marks are: its target's, as its claim at `at` holds them (retain: the
/// `processing_at` it wrote, which a retry or park matches).
pub(super) struct Claim<'a> {
    pub target: &'a PassTarget,
    pub at: DateTime<Utc>,
}

/// The end of a pass: retries grouped by new attempt count, then failed rows; returns the
/// rows to hand back untouched. The counts are of rows the marks changed (retain: a row
/// another relay claimed since is not).
pub(super) async fn finish_marks<S: RelayStore>(
    store: &mut S,
    claim: Claim<'_>,
    settings: &RelaySettings,
    rows: &[OutboxRow],
    outcomes: &[Outcome],
    parking: Parking<'_>,
    report: &mut PassReport,
) -> Result<Vec<uuid::Uuid>, StoreError> {
    let mut retries: Vec<(i32, Vec<(usize, String)>)> = Vec::new();
    let mut to_park: Vec<(String, usize)> = Vec::new();
    let mut untouched = Vec::new();
    let mut fail = |error: String, i: usize| to_park.push((error, i));
    for (i, outcome) in outcomes.iter().enumerate() {
        let row = &rows[i];
        match outcome {
            Outcome::Published => {}
            Outcome::NotReached | Outcome::HeldBack => untouched.push(row.id),
            // The destination was away: the message was not judged, no attempt counts.
            Outcome::Failed(e) if e.is_away() => untouched.push(row.id),
            Outcome::Poison(e) => fail(e.clone(), i),
            Outcome::Failed(e) if e.kind == Refusal::Permanent => fail(e.message.clone(), i),
            Outcome::Failed(e) => match backoff::decide(row.attempts, settings.max_attempts) {
                RetryDecision::Fail => fail(e.message.clone(), i),
                RetryDecision::Retry { attempts } => {
                    match retries.iter_mut().find(|(a, _)| *a == attempts) {
                        Some((_, group)) => group.push((i, e.message.clone())),
                        None => retries.push((attempts, vec![(i, e.message.clone())])),
                    }
                }
            },
        }
    }
    for (attempts, group) in &retries {
        let first = &group[0].1;
        let others = group.iter().filter(|(_, e)| e != first).count();
        let error = if others > 0 {
            format!("{first} (+{others} more)")
        } else {
            first.clone()
        };
        let u: f64 = rand::thread_rng().r#gen();
        let delay = backoff::retry_delay(
            *attempts,
            settings.retry_base_delay,
            settings.retry_max_backoff,
            u,
        );
        let at = Utc::now() + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX);
        let ids: Vec<uuid::Uuid> = group.iter().map(|(i, _)| rows[*i].id).collect();
        let n = (store.mark_retry(claim.target, &ids, *attempts, at, &error, claim.at)).await?;
        report.retried += n as usize;
    }
    let (park, hold) = dead_letter_first(rows, &parking, to_park).await;
    // held: the dead-letter destination did not take it; it comes round again, unparked
    let again = Utc::now()
        + chrono::Duration::from_std(settings.retry_max_backoff).unwrap_or(chrono::Duration::MAX);
    for (error, i) in &hold {
        let (id, attempts) = (rows[*i].id, rows[*i].attempts);
        let n = (store.mark_retry(claim.target, &[id], attempts, again, error, claim.at)).await?;
        report.retried += n as usize;
    }
    let mut failed: Vec<(String, Vec<uuid::Uuid>)> = Vec::new();
    for (error, i, sent) in park {
        report.dead_lettered += usize::from(sent);
        match failed.iter_mut().find(|(e, _)| *e == error) {
            Some((_, ids)) => ids.push(rows[i].id),
            None => failed.push((error, vec![rows[i].id])),
        }
    }
    for (error, ids) in &failed {
        let n = store
            .mark_failed(claim.target, ids, error, claim.at)
            .await?;
        report.failed += n as usize;
    }
    Ok(untouched)
}
