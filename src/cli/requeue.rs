//! `outboxctl requeue` and `outboxctl discard`: act on failed rows, by id or by filter with
//! `--all`, in batches (short statements, no long locks), with `--dry-run` and confirmation.

use std::collections::BTreeMap;

use clap::Args;
use serde::Serialize;
use uuid::Uuid;

use super::Ctx;
use super::inspect::{self, FilterArgs};
use crate::Error;
use crate::exit_code;
use crate::ops::failure_groups::fingerprint;
use crate::store::ops::{ErrorFilter, ListStatus, OpsStore};

const BATCH: u32 = 500;

#[derive(Debug, Args)]
pub struct FailedRowsArgs {
    /// Row ids (repeatable, or comma-separated)
    #[arg(
        long = "id",
        value_name = "ID",
        value_delimiter = ',',
        conflicts_with = "all"
    )]
    pub ids: Vec<Uuid>,
    /// Every failed row that matches the filters (required when selecting by filter)
    #[arg(long)]
    pub all: bool,
    /// The failed rows of these failure groups (ids from `inspect failed --group`; repeatable
    /// or comma-separated), as they are now; the filters narrow them further
    #[arg(
        long = "group",
        value_name = "ID",
        value_delimiter = ',',
        conflicts_with_all = ["ids", "all"]
    )]
    pub groups: Vec<String>,
    /// Only this route
    #[arg(long)]
    pub route: Option<String>,
    /// Only this tenant
    #[arg(long)]
    pub tenant: Option<Uuid>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Show what would change and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Requeue,
    Discard,
}

impl Action {
    fn verb(self) -> &'static str {
        match self {
            Action::Requeue => "requeue",
            Action::Discard => "discard",
        }
    }
    fn done(self) -> &'static str {
        match self {
            Action::Requeue => "requeued",
            Action::Discard => "discarded",
        }
    }
}

#[derive(Serialize)]
struct Report<'a> {
    action: &'static str,
    dry_run: bool,
    count: usize,
    ids: &'a [Uuid],
    #[serde(skip_serializing_if = "<[Uuid]>::is_empty")]
    not_failed: &'a [Uuid],
    /// With --group: each group's rows as selected now.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    groups: &'a BTreeMap<String, usize>,
}

pub async fn run(ctx: &Ctx, args: FailedRowsArgs, action: Action) -> anyhow::Result<u8> {
    let filtered = args.route.is_some()
        || args.tenant.is_some()
        || args.filter.event_type.is_some()
        || args.filter.older_than.is_some()
        || args.filter.error_contains.is_some();
    if args.ids.is_empty() && !args.all && args.groups.is_empty() {
        let hint = if filtered {
            "add --all to act on every failed row that matches"
        } else {
            "pass --id ID…, --group ID… or filters with --all"
        };
        return Err(
            Error::Runtime(format!("nothing selected to {}: {hint}", action.verb())).into(),
        );
    }
    if !args.ids.is_empty() && filtered {
        return Err(Error::Runtime(
            "--id cannot be combined with filters; use one or the other".into(),
        )
        .into());
    }
    let targets = crate::store::any::targets(&ctx.config, args.tenant)?;
    let mut conn = ctx.connect().await?;
    let now = chrono::Utc::now();

    // Select: the given ids, the rows of the given failure groups, or every matching failed
    // row (keyset pages).
    let mut selected: Vec<(usize, Uuid)> = Vec::new();
    let mut not_failed: Vec<Uuid> = Vec::new();
    let mut groups: BTreeMap<String, usize> = args.groups.iter().map(|g| (g.clone(), 0)).collect();
    for (ti, t) in targets.iter().enumerate() {
        if !args.groups.is_empty() {
            let filter = ErrorFilter {
                route: args.route.clone(),
                tenant: args.tenant,
                event_type: args.filter.event_type.clone(),
                retrying: false,
                limit: None,
            };
            let rows = inspect::error_rows(
                ctx,
                &mut conn,
                std::slice::from_ref(t),
                &filter,
                &args.filter,
                now,
            )
            .await?;
            for r in rows {
                let id = fingerprint(r.last_error.as_deref().unwrap_or(""));
                if let Some(n) = groups.get_mut(&id) {
                    *n += 1;
                    selected.push((ti, r.id));
                }
            }
            continue;
        }
        let mut ops = crate::store::any::open(&ctx.config, &mut conn, t).await?;
        if args.ids.is_empty() {
            let tenant = if ctx.config.outbox.tenant_aware {
                t.tenant.or(args.tenant)
            } else {
                args.tenant
            };
            let mut after = None;
            loop {
                let f = inspect::filter_for(
                    ListStatus::Failed,
                    args.route.clone(),
                    tenant,
                    &args.filter,
                    BATCH,
                    after,
                );
                let page = ops.list(&f, now).await?;
                after = page.last().map(|r| r.id);
                selected.extend(page.iter().map(|r| (ti, r.id)));
                if page.len() < BATCH as usize {
                    break;
                }
            }
        } else {
            selected.extend(args.ids.iter().map(|id| (ti, *id)));
        }
    }
    let mut ids: Vec<Uuid> = selected.iter().map(|(_, id)| *id).collect();
    ids.sort();
    ids.dedup();
    for (group, n) in &groups {
        if *n == 0 {
            ctx.out.warn(&format!(
                "group {group} has no failed rows now (requeued, discarded, or not an id from inspect failed --group)"
            ));
        }
    }
    if args.dry_run || ids.is_empty() {
        report(ctx, action, true, &ids, &not_failed, &groups);
        return Ok(exit_code::OK);
    }
    let what = match action {
        Action::Requeue => format!(
            "requeue {} failed row(s) (attempts reset to 0, due now)",
            ids.len()
        ),
        Action::Discard => format!(
            "delete {} failed row(s) from the outbox for good",
            ids.len()
        ),
    };
    super::confirm::confirm(ctx.yes, &what)?;
    let bar = ctx.out.progress(Some(ids.len() as u64), action.verb());
    let mut changed: Vec<Uuid> = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        let mine: Vec<Uuid> = selected
            .iter()
            .filter(|(i, _)| *i == ti)
            .map(|(_, id)| *id)
            .collect();
        let mut ops = crate::store::any::open(&ctx.config, &mut conn, t).await?;
        for batch in mine.chunks(BATCH as usize) {
            let done = match action {
                Action::Requeue => ops.requeue(batch).await?,
                Action::Discard => ops.discard(batch).await?,
            };
            bar.inc(batch.len() as u64);
            changed.extend(done);
        }
    }
    bar.finish_and_clear();
    if !args.ids.is_empty() {
        not_failed = args
            .ids
            .iter()
            .filter(|id| !changed.contains(id))
            .copied()
            .collect();
    }
    report(ctx, action, false, &changed, &not_failed, &groups);
    Ok(if not_failed.is_empty() {
        exit_code::OK
    } else {
        exit_code::CHECK_FAILED
    })
}

fn report(
    ctx: &Ctx,
    action: Action,
    dry_run: bool,
    ids: &[Uuid],
    not_failed: &[Uuid],
    groups: &BTreeMap<String, usize>,
) {
    if ctx.out.is_json() {
        ctx.out.json(&Report {
            action: action.done(),
            dry_run,
            count: ids.len(),
            ids,
            not_failed,
            groups,
        });
        return;
    }
    let verb = if dry_run {
        format!("would {}", action.verb())
    } else {
        action.done().to_owned()
    };
    for id in ids {
        ctx.out.data(&format!("{verb}: {id}"));
    }
    for id in not_failed {
        ctx.out.data(&format!("skipped: {id} (not a failed row)"));
    }
    for (group, n) in groups {
        ctx.out.note(&format!("group {group}: {n} row(s)"));
    }
    ctx.out.note(&format!("{verb} {} row(s)", ids.len()));
}
