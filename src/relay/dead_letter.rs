//! Parking a row with a route's `dead_letter_to:`: the row's message goes to the dead-letter
//! destination first (with why it was parked), within the pass's deadline; a row the
//! dead-letter destination did not take is held (pending, due again later), not parked.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;

use super::deadline::Deadline;
use crate::destination::{PublishError, Publisher};
use crate::model::{Message, OutboxRow};

/// What parking a row needs besides the store: the route's dead-letter destination (if any)
/// with the bound on one publish there, the pass's messages (the dead-letter message is built
/// from them) and its deadline.
pub(super) struct Parking<'a> {
    pub dead_letter: Option<(&'a Arc<dyn Publisher>, Duration)>,
    pub messages: &'a [Option<Arc<Message>>],
    pub deadline: Deadline<'a>,
}

/// The message a dead-letter destination gets: the row's own, with why it was parked.
pub fn dead_letter_message(message: &Message, error: &str, attempts: i32) -> Message {
    let mut line: String = error.lines().next().unwrap_or_default().to_owned();
    if line.len() > 1024 {
        let cut = (0..=1024)
            .rev()
            .find(|&i| line.is_char_boundary(i))
            .unwrap_or(0);
        line.truncate(cut);
    }
    let mut out = message.clone();
    out.headers.push(("outboxctl_error", line));
    out.headers
        .push(("outboxctl_attempts", attempts.to_string()));
    out.headers.push((
        "outboxctl_failed_at",
        Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
    ));
    out
}

/// Publishes the rows about to be parked to the dead-letter destination, within the pass's
/// deadline. Returns the rows to park (and whether each went to the dead-letter destination)
/// and the rows to hold (pending, attempts unchanged, due again after `retry_max_backoff`)
/// with the error the dead-letter publish gave.
pub(super) async fn dead_letter_first(
    rows: &[OutboxRow],
    parking: &Parking<'_>,
    to_park: Vec<(String, usize)>,
) -> (Vec<(String, usize, bool)>, Vec<(String, usize)>) {
    let Some((dl, timeout)) = parking.dead_letter else {
        return (
            to_park.into_iter().map(|(e, i)| (e, i, false)).collect(),
            Vec::new(),
        );
    };
    let (mut park, mut hold) = (Vec::new(), Vec::new());
    for (error, i) in to_park {
        // a payload that is not JSON has no message to send anywhere: parked as it is
        let Some(message) = &parking.messages[i] else {
            park.push((error, i, false));
            continue;
        };
        let now = Instant::now();
        if parking.deadline.passed(now) {
            hold.push((
                format!("dead-letter publish not started before the pass deadline; {error}"),
                i,
            ));
            continue;
        }
        let limit = parking.deadline.bound(now + timeout);
        let letter = Arc::new(dead_letter_message(message, &error, rows[i].attempts + 1));
        // the write (a file's flush) within the same bound as the publish
        let publish = tokio::time::timeout_at(limit.into(), async {
            dl.publish(letter).await?;
            dl.flush().await
        });
        let sent = match parking.deadline.unless_stopped(publish).await {
            Some(Ok(sent)) => sent,
            _ => Err(PublishError::timed_out("dead-letter publish timed out")),
        };
        match sent {
            Ok(()) => park.push((error, i, true)),
            Err(e) => hold.push((
                format!("dead-letter publish failed: {}; {error}", e.message),
                i,
            )),
        }
    }
    (park, hold)
}
