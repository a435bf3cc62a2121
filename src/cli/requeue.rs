//! `outboxctl requeue` and `outboxctl discard`: act on failed rows, by id or by filter with
//! `--all`, in batches (short statements, no long locks), with `--dry-run` and confirmation.

use std::path::PathBuf;

use clap::Args;
use uuid::Uuid;

use super::Ctx;
use super::inspect::FilterArgs;
pub use crate::ops::requeue::Action;
use crate::ops::requeue::{FailedRows, FailedRowsReport, SaveFile, Selection};

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
        value_parser = crate::ops::failure_groups::parse_group_id,
        conflicts_with_all = ["ids", "all"]
    )]
    pub groups: Vec<String>,
    /// Only this route
    #[arg(long, value_parser = crate::model::parse_route)]
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

#[derive(Debug, Args)]
pub struct DiscardArgs {
    #[command(flatten)]
    pub rows: FailedRowsArgs,
    /// Keep each row discarded, whole, as a JSON line appended to FILE (synced before it is deleted)
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
}

impl From<&FailedRowsArgs> for Selection {
    fn from(a: &FailedRowsArgs) -> Self {
        Selection {
            ids: a.ids.clone(),
            all: a.all,
            groups: a.groups.clone(),
            route: a.route.clone(),
            tenant: a.tenant,
            narrowing: (&a.filter).into(),
        }
    }
}

pub async fn run(
    ctx: &Ctx,
    args: FailedRowsArgs,
    action: Action,
    save: Option<PathBuf>,
) -> anyhow::Result<()> {
    let (rows, picked) =
        FailedRows::select(&ctx.config, ctx.connect_timeout, &(&args).into(), action).await?;
    picked.warnings.iter().for_each(|w| ctx.out.warn(w));
    if args.dry_run || picked.ids.is_empty() {
        let mut plan = picked.plan(action, args.dry_run);
        plan.saved_to = save.filter(|_| args.dry_run);
        report(ctx, &plan);
        return Ok(plan.verdict()?);
    }
    ctx.confirm(&action.question(picked.ids.len()))?;
    let mut file = save.as_deref().map(SaveFile::open).transpose()?;
    let bar = ctx.progress(picked.ids.len() as u64, action.verb());
    let done = rows
        .apply(&picked, action, file.as_mut(), |n| bar.inc(n))
        .await?;
    bar.finish_and_clear();
    report(ctx, &done);
    Ok(done.verdict()?)
}

fn report(ctx: &Ctx, r: &FailedRowsReport) {
    ctx.out.show(r, || {
        ctx.out.lines(&format!("{}: ", r.verb()), &r.ids);
        ctx.out
            .lines("skipped: ", r.skipped(ctx.config.outbox.tenant_aware));
        r.notes().iter().for_each(|n| ctx.out.note(n));
        r.left_warning().iter().for_each(|w| ctx.out.warn(w));
    });
}
