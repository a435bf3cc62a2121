//! What `outboxctl requeue` and `outboxctl discard` act on, and the acting: failed rows
//! selected by id, by failure group (as they are now) or by filter (keyset pages), then
//! returned to pending or deleted in batches (short statements, no long locks). `top`
//! requeues a group through the same two steps. No terminal: the command prints the
//! selection, asks, and shows progress through the callback it passes.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::Serialize;
use uuid::Uuid;

use crate::Error;
use crate::config::Config;
use crate::ops::failure_groups::fingerprint;
use crate::ops::inspect::{self, RowNarrowing};
use crate::store::any::Outboxes;
use crate::store::backend::Backend;
use crate::store::ops::{Chosen, ErrorFilter, Keep, ListStatus, OpsStore, RowView};

/// Rows per page read and per statement written.
pub const BATCH: u32 = 500;

/// What to do with the selected rows (in JSON: what was done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Action {
    /// Back to pending: attempts reset to 0, due now.
    #[serde(rename = "requeued")]
    Requeue,
    /// Deleted from the outbox.
    #[serde(rename = "discarded")]
    Discard,
}

impl Action {
    pub fn verb(self) -> &'static str {
        match self {
            Action::Requeue => "requeue",
            Action::Discard => "discard",
        }
    }

    pub fn done(self) -> &'static str {
        match self {
            Action::Requeue => "requeued",
            Action::Discard => "discarded",
        }
    }

    /// What acting on `n` rows does, as a confirmation asks it.
    pub fn question(self, n: usize) -> String {
        match self {
            Action::Requeue => {
                format!("requeue {n} failed row(s) (attempts reset to 0, due now)")
            }
            Action::Discard => format!("delete {n} failed row(s) from the outbox for good"),
        }
    }
}

/// Which failed rows: given ids, every row of some failure groups, or (with `all`) every row
/// the filters match. Route, tenant and the narrowing filter the last two.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub ids: Vec<Uuid>,
    pub all: bool,
    pub groups: Vec<String>,
    pub route: Option<String>,
    pub tenant: Option<Uuid>,
    pub narrowing: RowNarrowing,
}

impl Selection {
    fn filtered(&self) -> bool {
        self.route.is_some()
            || self.tenant.is_some()
            || self.narrowing.event_type.is_some()
            || self.narrowing.older_than.is_some()
            || self.narrowing.error_contains.is_some()
    }

    /// Refuses a selection that selects nothing, or mixes ids with filters.
    pub fn check(&self, action: Action) -> Result<(), Error> {
        if self.ids.is_empty() && !self.all && self.groups.is_empty() {
            let hint = if self.filtered() {
                "add --all to act on every failed row that matches"
            } else {
                "pass --id ID…, --group ID… or filters with --all"
            };
            return Err(Error::Usage(format!(
                "nothing selected to {}: {hint}",
                action.verb()
            )));
        }
        if !self.ids.is_empty() && self.filtered() {
            return Err(Error::Usage(
                "--id cannot be combined with filters; use one or the other".into(),
            ));
        }
        Ok(())
    }
}

/// The rows a selection found, per target.
#[derive(Debug, Clone, Default)]
pub struct Picked {
    /// (index of the target, row id), in the order found.
    rows: Vec<(usize, Uuid)>,
    /// The ids asked for by `--id`, to tell which were not failed rows.
    asked: Vec<Uuid>,
    /// Every selected id, sorted, once.
    pub ids: Vec<Uuid>,
    /// With groups: each group's rows as selected now (0: none now).
    pub groups: BTreeMap<String, usize>,
    /// With groups: the group of each row selected.
    group_of: HashMap<Uuid, String>,
    /// The error each row was chosen by (its failure group, `--error-contains`; `None`: it had
    /// none): the change acts on it only while it still has that error.
    error_of: HashMap<Uuid, Option<String>>,
    /// What the operator should hear before acting: groups that have no failed rows now, a
    /// route the configuration does not serve (a typo, or rows requeued for no relay of it).
    pub warnings: Vec<String>,
}

impl Picked {
    /// What acting would change (the ids asked for that are not failed rows now among it): the
    /// selection as a dry run, or, with `dry_run` false, as the outcome of a selection that
    /// found nothing to change.
    pub fn plan(&self, action: Action, dry_run: bool) -> FailedRowsReport {
        FailedRowsReport {
            action,
            dry_run,
            count: self.ids.len(),
            ids: self.ids.clone(),
            not_failed: self.not_failed(&self.ids),
            groups: self.groups.clone(),
            left: 0,
            saved_to: None,
        }
    }

    /// The ids asked for by `--id` that are not among `found`.
    fn not_failed(&self, found: &[Uuid]) -> Vec<Uuid> {
        let missing = self.asked.iter().filter(|id| !found.contains(id));
        missing.copied().collect()
    }
}

/// What was (with `dry_run`: would be) requeued or discarded.
#[derive(Debug, Clone, Serialize)]
pub struct FailedRowsReport {
    pub action: Action,
    pub dry_run: bool,
    pub count: usize,
    pub ids: Vec<Uuid>,
    /// Ids asked for by `--id` that were not failed rows (nothing changed for them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_failed: Vec<Uuid>,
    /// With groups: each group's rows as selected (a dry run) or as changed.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<String, usize>,
    /// Rows selected that were not changed: requeued or discarded meanwhile, or failed again
    /// with another error than the one that chose them.
    #[serde(skip_serializing_if = "is_zero")]
    pub left: usize,
    /// `discard --save`: the file that holds a copy of each row discarded (or would).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_to: Option<std::path::PathBuf>,
}

/// Where `discard --save` keeps the rows it deletes: each row whole (every column, as JSON) on
/// a line of its own, appended and synced to disk before its batch's deletion commits. A write
/// that fails deletes nothing, and what it wrote of that batch is cut off again.
pub struct SaveFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    /// Rows kept (and so discarded) so far.
    saved: usize,
}

impl SaveFile {
    /// Opens `path` to append to, creating it readable by its owner only (rows carry payloads).
    pub fn open(path: &std::path::Path) -> Result<Self, Error> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| {
                Error::io(
                    format!("opening {} to keep the rows discarded", path.display()),
                    e,
                )
            })?;
        Ok(Self {
            path: path.to_owned(),
            file,
            saved: 0,
        })
    }

    fn keep(&mut self, rows: &[String]) -> Result<(), Error> {
        use std::io::Write;
        let lines: String = rows.iter().map(|r| format!("{r}\n")).collect();
        let f = &mut self.file;
        let was = f.metadata().map(|m| m.len());
        let written = f.write_all(lines.as_bytes()).and_then(|()| f.sync_data());
        if let Err(e) = written {
            if let Ok(len) = was {
                let _ = f.set_len(len);
            }
            // the batches before it were discarded, and the run ends on an error: said here,
            // where a script reads nothing else of them
            let before = match self.saved {
                0 => String::new(),
                n => format!("; the {n} row(s) discarded before it are in the file"),
            };
            let path = self.path.display();
            let what = format!(
                "keeping the rows discarded in {path} (none of this batch was discarded{before})"
            );
            return Err(Error::io(what, e));
        }
        self.saved += rows.len();
        Ok(())
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl FailedRowsReport {
    /// What was done to the rows (`requeued`), or would be (`would requeue`).
    pub fn verb(&self) -> String {
        match self.dry_run {
            true => format!("would {}", self.action.verb()),
            false => self.action.done().to_owned(),
        }
    }

    /// What people read under the ids: each group's rows, the count, where the copy went.
    pub fn notes(&self) -> Vec<String> {
        let verb = self.verb();
        let groups = (self.groups.iter()).map(|(g, n)| format!("group {g}: {n} row(s)"));
        let count = format!("{verb} {} row(s)", self.ids.len());
        let copy = (self.saved_to.as_ref()).map(|p| format!("a copy of each: {}", p.display()));
        groups.chain([count]).chain(copy).collect()
    }

    /// Rows selected that were not changed, said as a warning.
    pub fn left_warning(&self) -> Option<String> {
        (self.left > 0).then(|| format!("{} row(s) selected were left: requeued or discarded meanwhile, or failed again with another error", self.left))
    }

    /// A line per id given that was not a failed row: on a tenant-aware outbox it was looked
    /// for among the configured tenants' rows only, and the line says so.
    pub fn skipped(&self, tenant_aware: bool) -> Vec<String> {
        let among = if tenant_aware {
            " of the configured tenants"
        } else {
            ""
        };
        (self.not_failed.iter())
            .map(|id| format!("{id} (not a failed row{among})"))
            .collect()
    }

    /// A failed check when some ids given were not failed rows (they were left as they are),
    /// or some groups given had none (each was named on stderr): as an id, a group mistyped
    /// or already dealt with is not a success.
    pub fn verdict(&self) -> Result<(), Error> {
        let empty: Vec<&str> = empty(&self.groups).collect();
        match (self.not_failed.len(), empty.as_slice()) {
            (0, []) => Ok(()),
            (n, []) => Err(Error::CheckFailed(format!(
                "{n} of the given row(s) were not failed rows and were left as they are"
            ))),
            // `--group` and `--id` are exclusive: no ids then
            (_, groups) => Err(Error::CheckFailed(format!(
                "{} of the given group(s) had no failed rows to {}: {}",
                groups.len(),
                self.action.verb(),
                groups.join(", "),
            ))),
        }
    }
}

/// The groups of `groups` (each with its rows' count) that have none.
fn empty(groups: &BTreeMap<String, usize>) -> impl Iterator<Item = &str> {
    (groups.iter())
        .filter(|(_, n)| **n == 0)
        .map(|(g, _)| g.as_str())
}

/// Selects the failed rows `sel` names over `outboxes`.
pub async fn select_in(outboxes: &mut Outboxes, sel: &Selection) -> Result<Picked, Error> {
    let now = chrono::Utc::now();
    let mut rows: Vec<(usize, Uuid)> = Vec::new();
    let mut groups: BTreeMap<String, usize> = sel.groups.iter().map(|g| (g.clone(), 0)).collect();
    let mut group_of = HashMap::new();
    let mut error_of = HashMap::new();
    let by_error = sel.narrowing.error_contains.is_some();
    for ti in 0..outboxes.len() {
        // outboxes opened for every tenant (`top`'s) serve a selection of one: the others'
        // rows are not its
        let own = outboxes.target(ti).tenant();
        if sel.tenant.is_some() && own.is_some() && own != sel.tenant {
            continue;
        }
        if !sel.groups.is_empty() {
            let filter = ErrorFilter {
                route: sel.route.clone(),
                tenant: sel.tenant,
                event_type: sel.narrowing.event_type.clone(),
                retrying: false,
                limit: None,
            };
            let found =
                inspect::error_rows(outboxes, ti..ti + 1, &filter, &sel.narrowing, now).await?;
            for r in found {
                let id = fingerprint(r.last_error.as_deref().unwrap_or(""));
                if let Some(n) = groups.get_mut(&id) {
                    // a row no statement can name (left out below) is not its group's
                    *n += usize::from(!r.id.is_nil());
                    rows.push((ti, r.id));
                    group_of.insert(r.id, id);
                    error_of.insert(r.id, r.last_error);
                }
            }
            continue;
        }
        let tenant = outboxes.target(ti).tenant();
        let mut ops = outboxes.open(ti).await?;
        if !sel.ids.is_empty() {
            // only the failed ones: a dry run and the prompt count what acting would change
            let failed = ops.failed_among(&sel.ids, tenant).await?;
            rows.extend(failed.into_iter().map(|id| (ti, id)));
            continue;
        }
        let mut after = None;
        loop {
            let f = inspect::filter_for(
                ListStatus::Failed,
                sel.route.clone(),
                tenant,
                &sel.narrowing,
                BATCH,
                after,
            );
            let page = ops.list(&f, now).await?;
            after = page.last().map(RowView::position);
            rows.extend(page.iter().map(|r| (ti, r.id)));
            if by_error {
                error_of.extend(page.iter().map(|r| (r.id, r.last_error.clone())));
            }
            if page.len() < BATCH as usize {
                break;
            }
        }
    }
    // a document whose `id` is not a UUID (MongoDB, written by hand) reads as the nil UUID: no
    // statement can name it, so it is left out and said (it was counted, then "left")
    let unnamed = rows.iter().filter(|(_, id)| id.is_nil()).count();
    rows.retain(|(_, id)| !id.is_nil());
    let warnings = (unnamed > 0).then(|| format!(
        "{unnamed} failed row(s) have an id that is not a UUID (a document written by hand?) and are left out: fix or remove them in the database"
    ));
    let mut ids: Vec<Uuid> = rows.iter().map(|(_, id)| *id).collect();
    ids.sort();
    ids.dedup();
    Ok(Picked {
        rows,
        asked: sel.ids.clone(),
        ids,
        groups,
        group_of,
        error_of,
        warnings: warnings.into_iter().collect(),
    })
}

/// Requeues or discards the rows picked over `outboxes` (the same outboxes, in the same
/// order), `BATCH` at a time; `progress` hears how many rows each batch covered.
pub async fn apply_in(
    outboxes: &mut Outboxes,
    picked: &Picked,
    action: Action,
    mut save: Option<&mut SaveFile>,
    mut progress: impl FnMut(u64),
) -> Result<FailedRowsReport, Error> {
    let mut changed: Vec<Uuid> = Vec::new();
    for ti in 0..outboxes.len() {
        let mine: Vec<Chosen> = (picked.rows.iter())
            .filter(|(i, _)| *i == ti)
            .map(|&(_, id)| Chosen {
                id,
                error: picked.error_of.get(&id).cloned(),
            })
            .collect();
        let mut ops = outboxes.open(ti).await?;
        for batch in mine.chunks(BATCH as usize) {
            let done = match action {
                Action::Requeue => ops.requeue(batch).await?,
                Action::Discard => match save.as_deref_mut() {
                    Some(file) => {
                        let keep: &mut Keep<'_> = &mut |rows| file.keep(rows);
                        ops.discard(batch, Some(keep)).await?
                    }
                    None => ops.discard(batch, None).await?,
                },
            };
            progress(batch.len() as u64);
            changed.extend(done);
        }
    }
    let not_failed = picked.not_failed(&changed);
    // each group's rows as changed (a row another operator got to first is not counted)
    let mut groups: BTreeMap<String, usize> =
        picked.groups.keys().map(|g| (g.clone(), 0)).collect();
    for g in changed.iter().filter_map(|id| picked.group_of.get(id)) {
        *groups.entry(g.clone()).or_default() += 1;
    }
    // not counting the ids asked for by --id, which are reported as not failed
    let done: std::collections::HashSet<&Uuid> = changed.iter().collect();
    let left = (picked.ids.iter())
        .filter(|id| !done.contains(id) && !picked.asked.contains(id))
        .count();
    Ok(FailedRowsReport {
        action,
        dry_run: false,
        count: changed.len(),
        left,
        ids: changed,
        not_failed,
        groups,
        saved_to: save.map(|s| s.path.clone()),
    })
}

/// One connection and the outboxes a selection reads, kept from selecting to acting.
pub struct FailedRows {
    outboxes: Outboxes,
}

impl FailedRows {
    /// Checks the selection, resolves the targets (only its tenant's when given), connects
    /// within `connect_timeout` and selects.
    pub async fn select(
        config: &Config,
        connect_timeout: Duration,
        sel: &Selection,
        action: Action,
    ) -> Result<(Self, Picked), Error> {
        sel.check(action)?;
        // on a shared table another tenant's rows are there to read, but requeued they would
        // wait for a relay that never comes: the relay claims the listed tenants' rows only
        if let Some(t) =
            (sel.tenant).filter(|&t| action == Action::Requeue && config.tenant_unlisted(t))
        {
            return Err(Error::Usage(format!(
                "--tenant {t} is not listed under outbox.tenants: no relay serves its rows, so requeued they would stay pending; list it first"
            )));
        }
        let mut outboxes = Backend::of(config, connect_timeout)
            .outboxes(sel.tenant)
            .await?;
        let mut picked = select_in(&mut outboxes, sel).await?;
        picked.warnings.extend(empty(&picked.groups)
            .map(|g| match sel.filtered() {
                // a group of another route (or tenant, type…) than the filters': said so
                true => format!("group {g} has no failed rows now among those --route, --tenant and the filters select (requeued, discarded, of another route or tenant, or not an id from inspect failed --group)"),
                false => format!("group {g} has no failed rows now (requeued, discarded, or not an id from inspect failed --group)"),
            }));
        // a route no relay of this configuration serves: a typo selects nothing, and requeued
        // rows of it would wait for relays of another configuration
        let unserved = (sel.route.as_deref()).and_then(|r| config.route_unconfigured(r));
        match unserved {
            Some(why) if picked.ids.is_empty() => picked.warnings.push(why),
            Some(why) if action == Action::Requeue => picked.warnings.push(format!(
                "{why}: requeued rows wait for a relay that serves it"
            )),
            _ => {}
        }
        Ok((Self { outboxes }, picked))
    }

    /// Acts on what [`FailedRows::select`] picked.
    pub async fn apply(
        mut self,
        picked: &Picked,
        action: Action,
        save: Option<&mut SaveFile>,
        progress: impl FnMut(u64),
    ) -> Result<FailedRowsReport, Error> {
        apply_in(&mut self.outboxes, picked, action, save, progress).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KeyOrder, OutboxRow, Status, Storage};
    use crate::store::memory::{MemRow, MemoryOutbox};

    fn failed(n: u128, tenant: Uuid) -> MemRow {
        let at = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(1_764_583_200_000)
            .expect("a time");
        let mut row = MemRow::pending(OutboxRow {
            id: Uuid::from_u128(n),
            route: "orders".into(),
            event_id: Uuid::from_u128(0xE000 + n),
            event_type: "t".into(),
            tenant_id: Some(tenant),
            execution_id: None,
            correlation_id: None,
            causation_id: None,
            occurred_at: at,
            payload: "{}".into(),
            attempts: 1,
            ordering_key: None,
            created_at: at,
            hlc: None,
            traceparent: None,
        });
        row.status = Status::Failed;
        row.last_error = Some("boom".into());
        row
    }

    /// `top` opens every tenant's outbox; its `r` on one tenant's row selects that tenant's
    /// failed rows of the group, not the other tenants' of the same route and error.
    #[tokio::test]
    async fn a_group_on_one_tenant_leaves_the_other_tenants_rows() {
        let (a, b) = (Uuid::from_u128(0xA), Uuid::from_u128(0xB));
        let outbox = MemoryOutbox::new(Storage::Retain, KeyOrder::BestEffort);
        outbox.table().rows.extend([failed(1, a), failed(2, b)]);
        let mut outboxes = Outboxes::Memory {
            outbox: outbox.clone(),
            tenants: vec![Some(a), Some(b)],
        };
        let sel = Selection {
            groups: vec![fingerprint("boom")],
            route: Some("orders".into()),
            tenant: Some(a),
            ..Default::default()
        };
        let picked = select_in(&mut outboxes, &sel).await.expect("selected");
        assert_eq!(picked.ids, vec![Uuid::from_u128(1)]);
        let done = apply_in(&mut outboxes, &picked, Action::Requeue, None, |_| {})
            .await
            .expect("requeued");
        assert_eq!(done.count, 1);
        let statuses: Vec<Status> = outbox.table().rows.iter().map(|r| r.status).collect();
        assert_eq!(statuses, vec![Status::Pending, Status::Failed]);
    }
}
