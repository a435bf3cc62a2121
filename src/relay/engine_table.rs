//! A chunk into a `postgres-table:` destination: one insert of its rows. When the table
//! refuses the data ([`Fault::Refused`]: a constraint, a value it cannot take, a trigger's
//! `RAISE`), the rows go one by one, so the row it refuses gets an attempt as a refused publish
//! does (and parks at `max_attempts`) and the others are taken. Anything else (a disk full, the
//! database away) fails the pass as before: no attempt counts against the rows.
//!
//! That needs the insert `guarded`: under retain it stands on its own (inside a caller's
//! transaction, in a savepoint). Under consume the insert waits for the pass's `COMMIT`, where a
//! refusal rolls the whole pass back; the pass then runs once more with each insert in a
//! savepoint of its own, sent at once (`run_pass`), so the happy path keeps its two round trips.

use std::collections::HashSet;
use std::sync::Arc;

use chrono::Utc;

use super::Outcome;
use crate::db::fault::Fault;
use crate::destination::PublishError;
use crate::model::{Message, OutboxRow};
use crate::store::{RelayStore, StoreError};
use crate::target::QualifiedName;
use crate::telemetry::Root;

/// What [`TableChunk::insert`] works on.
pub(super) struct TableChunk<'a> {
    pub table: &'a QualifiedName,
    pub rows: &'a [OutboxRow],
    pub messages: &'a [Option<Arc<Message>>],
    pub chunk: &'a [usize],
    /// Each insert in a savepoint of its own, sent now, so that a refused row can be told
    /// from the others (always under retain; under consume once a pass was refused).
    pub guarded: bool,
    pub strict: bool,
}

impl TableChunk<'_> {
    /// Inserts the chunk, each row's outcome in `outcomes`. Under strict order a row whose key
    /// an earlier row holds (`blocked`) is held back, and a refused row holds its key. An
    /// error is the pass's: the database away, or a refusal it cannot tell row by row.
    pub async fn insert<S: RelayStore>(
        &self,
        store: &mut S,
        trace: &Root,
        outcomes: &mut [Outcome],
        blocked: &mut HashSet<(Option<uuid::Uuid>, String)>,
    ) -> Result<(), StoreError> {
        let held = |i: usize, blocked: &HashSet<_>| {
            self.strict && blocked.contains(&self.rows[i].order_key())
        };
        let mut go = Vec::with_capacity(self.chunk.len());
        for &i in self.chunk {
            if held(i, blocked) {
                outcomes[i] = Outcome::HeldBack;
            } else {
                go.push(i);
            }
        }
        let message = |i: usize| self.messages[i].as_deref().expect("built");
        let inserted = self
            .send(store, trace, go.iter().map(|&i| message(i)))
            .await;
        match inserted {
            Ok(()) => {
                go.iter().for_each(|&i| outcomes[i] = Outcome::Published);
                return Ok(());
            }
            Err(e) if self.guarded && e.fault == Fault::Refused => {}
            Err(e) => return Err(e),
        }
        for i in go {
            if held(i, blocked) {
                outcomes[i] = Outcome::HeldBack;
                continue;
            }
            outcomes[i] = match self.send(store, trace, [message(i)]).await {
                Ok(()) => Outcome::Published,
                Err(e) if e.fault == Fault::Refused => {
                    if self.strict {
                        blocked.insert(self.rows[i].order_key());
                    }
                    Outcome::Failed(PublishError::transient(e.to_string()))
                }
                Err(e) => return Err(e),
            };
        }
        Ok(())
    }

    /// One insert of `messages` (none: nothing sent), traced as one send.
    async fn send<'m, S: RelayStore>(
        &self,
        store: &mut S,
        trace: &Root,
        messages: impl IntoIterator<Item = &'m Message>,
    ) -> Result<(), StoreError> {
        let msgs: Vec<&Message> = messages.into_iter().collect();
        if msgs.is_empty() {
            return Ok(());
        }
        let began = trace.now();
        let inserted = store
            .insert_sink(self.table, &msgs, Utc::now(), self.guarded)
            .await;
        if let Some(began) = began {
            let error = inserted.as_ref().err().map(ToString::to_string);
            let error = error.as_deref().map(|e| ("database", e));
            let to = crate::destination::table_messaging(self.table);
            trace.send(&to, began, msgs.iter().copied(), error);
        }
        inserted.map(|_| ())
    }
}
