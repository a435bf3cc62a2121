//! Claiming ahead (`relay.claim_ahead`, retain storage, best-effort order): while a pass
//! publishes and marks its rows on the lane's connection, the route's next batch is claimed on
//! a second one, so PostgreSQL runs that claim beside the marks instead of after them.
//!
//! The rows claimed ahead are used by the route's next pass only when this pass delivered
//! every row it claimed (committed, nothing retried, parked, held back or left unsent, the
//! destination not found away, no stop). Otherwise they go back to `pending` untouched (the
//! release matches their claim's `processing_at`), so a key whose row failed or stayed behind
//! is claimed again in order, as a relay claiming after the pass would. The next batch's
//! publishes always start after this pass's marks.

use std::time::Instant;

use chrono::{DateTime, Utc};

use crate::store::{Claimed, PassTarget, RelayStore};

/// Rows claimed ahead for a route's next pass, with the `now` of their claim.
pub struct Ahead {
    pub claimed: Claimed,
    pub at: DateTime<Utc>,
    /// When the claim was sent: the pauses it read (`FleetView::claimed_at`).
    pub sent: Instant,
}

/// A pass's part in claiming ahead: the second connection (`None`: this pass claims nothing
/// ahead), the rows an earlier pass claimed for this one, and those this pass claimed for the
/// next.
pub struct ClaimAhead<'s, S> {
    pub store: Option<&'s mut S>,
    pub prior: Option<Ahead>,
    pub next: Option<Ahead>,
}

impl<S> ClaimAhead<'_, S> {
    /// No claim ahead: a pass as it always ran.
    pub fn none() -> Self {
        ClaimAhead {
            store: None,
            prior: None,
            next: None,
        }
    }
}

/// Claims the route's next batch on the second connection. A failure claims nothing ahead: it
/// is warned of, and the next pass claims for itself.
pub(super) async fn claim_next<S: RelayStore>(
    store: &mut S,
    target: &PassTarget,
    limit: u32,
) -> Option<Ahead> {
    let (at, sent) = (Utc::now(), Instant::now());
    let claimed = async {
        store.begin_pass(target).await?;
        store.claim(target, limit, at).await
    };
    match claimed.await {
        Ok(claimed) if claimed.rows.is_empty() && claimed.parked == 0 => None,
        Ok(claimed) => Some(Ahead { claimed, at, sent }),
        Err(e) => {
            // what it may have claimed before it failed waits for reclaim, as a lost claim's
            tracing::warn!(route = %target, "claiming ahead failed, the next pass claims for itself (rows it may have claimed return after relay.reclaim_stale_after): {e}");
            None
        }
    }
}

/// Returns rows claimed ahead to `pending`, untouched (those their claim still holds); says
/// how many documents the claim parked as unreadable (MongoDB), for the caller to count as
/// failed.
pub async fn release<S: RelayStore>(store: &mut S, target: &PassTarget, ahead: Ahead) -> usize {
    let ids: Vec<uuid::Uuid> = ahead.claimed.rows.iter().map(|r| r.id).collect();
    if !ids.is_empty() {
        if let Err(e) = store.release(target, &ids, ahead.at).await {
            tracing::warn!(route = %target, "{} rows claimed ahead could not be released; reclaim returns them after relay.reclaim_stale_after: {e}", ids.len());
        }
    }
    ahead.claimed.parked
}
