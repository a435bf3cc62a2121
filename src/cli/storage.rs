//! `outboxctl storage status | to-consume`: the specification's move from retain to consume
//! storage as a guided procedure, with checks that refuse unsafe steps.
//!
//! 1. Deploy relays with `storage: consume`, keeping reclaim on (cannot be observed: confirm).
//! 2. Wait until no `processing` row is left and the retention job has removed published rows.
//! 3. With reclaim off, drop `processing_at`, `published_at` and the indexes on them, in one
//!    transaction that first locks the table and re-checks step 2 (under a statement timeout,
//!    so the lock is never held long), so no row slips in between.
//!
//! With a per-tenant relation (`{tenant}`) every configured tenant's table is checked and
//! reported, and a step is taken only when every table allows it.

use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde::Serialize;

use super::Ctx;
use crate::duration::Dur;
use crate::exit_code;
use crate::store::postgres::consume_move::{self, DropColumns};
use crate::target::QualifiedName;
use crate::{Error, db};

#[derive(Debug, Subcommand)]
pub enum StorageCommand {
    /// Where the table stands: columns, processing and published rows, the next step
    Status,
    /// Walk the retain → consume steps (the next one, or --step N)
    ToConsume(ToConsumeArgs),
}

#[derive(Debug, Args)]
pub struct ToConsumeArgs {
    /// Run this step (default: the next one)
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub step: Option<u8>,
    /// Print what step 3 would run and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Every relay on this table runs with reclaim off (reclaim_stale_after: null); step 3 needs it
    #[arg(long)]
    pub reclaim_disabled: bool,
    /// Step 2: wait up to this long for processing and published rows to be gone
    #[arg(long, value_name = "DURATION")]
    pub wait: Option<Dur>,
    /// lock_timeout for step 3's table lock
    #[arg(long, value_name = "DURATION", default_value = "500ms")]
    pub lock_timeout: Dur,
    /// Attempts after the first when the lock stays busy
    #[arg(long, default_value_t = 10)]
    pub retries: u32,
    /// statement_timeout for step 3's re-check and drop while the table is locked
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub check_timeout: Dur,
}

/// Published rows are counted up to this many (an exact count of millions is not needed).
const PUBLISHED_CAP: i64 = 100_000;

#[derive(Debug, Serialize)]
pub struct StorageStatus {
    pub table: String,
    /// The tenant whose table this is (per-tenant relations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<uuid::Uuid>,
    pub configured_storage: String,
    pub has_processing_at: bool,
    pub has_published_at: bool,
    pub processing: i64,
    /// Capped at 100,000 (`published_capped` says when it was reached).
    pub published: i64,
    pub published_capped: bool,
    pub reclaim_on: bool,
    /// Indexes that use processing_at or published_at (step 3 drops them with the columns).
    pub indexes_on_dropped_columns: Vec<String>,
    pub next_step: Option<u8>,
    pub blockers: Vec<String>,
}

/// One outbox table: the tenant it serves (per-tenant relations) and its name.
type Table = (Option<uuid::Uuid>, QualifiedName);

async fn status(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    (tenant, table): &Table,
    reclaim_disabled: bool,
) -> Result<StorageStatus, Error> {
    let facts = crate::schema::postgres::table_facts(conn, table)
        .await
        .map_err(|e| Error::pg(format!("reading {}", table.plain()), e))?
        .ok_or_else(|| Error::Runtime(format!("outbox table {} does not exist", table.plain())))?;
    let has_processing_at = facts.column("processing_at").is_some();
    let has_published_at = facts.column("published_at").is_some();
    let indexes: Vec<String> = facts
        .indexes
        .iter()
        .filter(|i| {
            i.columns
                .iter()
                .any(|c| c == "processing_at" || c == "published_at")
        })
        .map(|i| i.name.clone())
        .collect();
    let (processing, published) = consume_move::remaining(conn, table, PUBLISHED_CAP).await?;
    let reclaim_on = ctx.config.relay.reclaim_stale_after.is_some() && !reclaim_disabled;
    let mut blockers = Vec::new();
    let next_step = if !has_processing_at && !has_published_at {
        None
    } else if processing > 0 || published > 0 {
        if processing > 0 {
            blockers.push(format!("{processing} row(s) are processing: reclaim (on in the consume relays) returns them"));
        }
        if published > 0 {
            let n = if published >= PUBLISHED_CAP {
                format!("at least {published}")
            } else {
                published.to_string()
            };
            blockers.push(format!(
                "{n} published row(s) remain: let the retention job remove them"
            ));
        }
        Some(2)
    } else {
        if reclaim_on {
            blockers.push("reclaim is on: set relay.reclaim_stale_after: null in every relay (then pass --reclaim-disabled); dropping processing_at while a relay reclaims fails every pass".into());
        }
        Some(3)
    };
    Ok(StorageStatus {
        table: table.plain(),
        tenant: *tenant,
        configured_storage: ctx.config.outbox.storage.to_string(),
        has_processing_at,
        has_published_at,
        processing,
        published,
        published_capped: published >= PUBLISHED_CAP,
        reclaim_on,
        indexes_on_dropped_columns: indexes,
        next_step,
        blockers,
    })
}

/// Prints each table's status: one JSON object for one table, an array for several.
fn print_statuses(ctx: &Ctx, all: &[StorageStatus]) {
    if ctx.out.is_json() {
        match all {
            [one] => ctx.out.json(one),
            many => ctx.out.json(&many),
        }
        return;
    }
    let text: Vec<String> = all.iter().map(status_text).collect();
    ctx.out.data(&text.join("\n\n"));
}

fn status_text(s: &StorageStatus) -> String {
    let yn = |b: bool| if b { "present" } else { "dropped" };
    let mut lines = vec![format!("table:            {}", s.table)];
    if let Some(t) = s.tenant {
        lines.push(format!("tenant:           {t}"));
    }
    lines.extend([
        format!("configured:       storage: {}", s.configured_storage),
        format!("processing_at:    {}", yn(s.has_processing_at)),
        format!("published_at:     {}", yn(s.has_published_at)),
        format!("processing rows:  {}", s.processing),
        format!(
            "published rows:   {}{}",
            s.published,
            if s.published_capped { "+" } else { "" }
        ),
        format!(
            "reclaim:          {}",
            if s.reclaim_on { "on" } else { "off" }
        ),
    ]);
    if !s.indexes_on_dropped_columns.is_empty() {
        lines.push(format!(
            "indexes on them:  {}",
            s.indexes_on_dropped_columns.join(", ")
        ));
    }
    lines.push(match s.next_step {
        None => "next step:        none: the table is consume-only".into(),
        Some(2) => "next step:        2 (after step 1: relays on storage: consume with reclaim on) — wait for the table to empty of processing and published rows".into(),
        Some(n) => format!("next step:        {n} — drop processing_at and published_at"),
    });
    for b in &s.blockers {
        lines.push(format!("blocked:          {b}"));
    }
    lines.join("\n")
}

/// Every table's status.
async fn statuses(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    tables: &[Table],
    reclaim_disabled: bool,
) -> Result<Vec<StorageStatus>, Error> {
    let mut all = Vec::with_capacity(tables.len());
    for t in tables {
        all.push(status(ctx, conn, t, reclaim_disabled).await?);
    }
    Ok(all)
}

/// The blockers of every table, each naming its table when there are several.
fn blockers(all: &[StorageStatus]) -> Vec<String> {
    all.iter()
        .flat_map(|s| {
            s.blockers.iter().map(move |b| match all.len() {
                1 => b.clone(),
                _ => format!("{}: {b}", s.table),
            })
        })
        .collect()
}

pub async fn run(ctx: &Ctx, cmd: StorageCommand) -> anyhow::Result<u8> {
    let tables: Vec<Table> = crate::store::any::pg_targets(&ctx.config, None)?
        .into_iter()
        .map(|t| (t.tenant, t.table))
        .collect();
    if tables.is_empty() {
        return Err(Error::Runtime("no outbox configured".into()).into());
    }
    let mut conn = ctx.connect_pg().await?;
    match cmd {
        StorageCommand::Status => {
            let all = statuses(ctx, &mut conn, &tables, false).await?;
            print_statuses(ctx, &all);
            Ok(exit_code::OK)
        }
        StorageCommand::ToConsume(args) => to_consume(ctx, &mut conn, &tables, args).await,
    }
}

async fn to_consume(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    tables: &[Table],
    args: ToConsumeArgs,
) -> anyhow::Result<u8> {
    let mut all = statuses(ctx, conn, tables, args.reclaim_disabled).await?;
    let names = all
        .iter()
        .map(|s| s.table.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let step = match (args.step, all.iter().filter_map(|s| s.next_step).min()) {
        (Some(n), _) => n,
        (None, Some(n)) => n,
        (None, None) => {
            ctx.out
                .note(&format!("{names}: already consume-only: nothing to do"));
            return Ok(exit_code::OK);
        }
    };
    match step {
        1 => {
            ctx.out.data(&format!(
                "step 1: deploy every relay of {names} with storage: consume, keeping reclaim_stale_after set.\n\
                 Their claims take pending rows, and reclaim returns the processing rows retain relays left behind.\n\
                 Relays (outboxctl's or forze's) cannot be observed from the database: confirm when they run."
            ));
            super::confirm::confirm(
                ctx.yes,
                "confirm that every relay now runs with storage: consume and reclaim on",
            )?;
            ctx.out
                .note("step 1 confirmed; next: outboxctl storage to-consume --step 2");
            Ok(exit_code::OK)
        }
        2 => {
            let deadline = args.wait.map(|w| Instant::now() + w.0);
            let bar = ctx
                .out
                .progress(None, "waiting for processing and published rows to go");
            loop {
                let (processing, published) = all
                    .iter()
                    .fold((0, 0), |(a, b), s| (a + s.processing, b + s.published));
                if processing == 0 && published == 0 {
                    bar.finish_and_clear();
                    ctx.out.note("step 2 done: no processing and no published rows; next: turn reclaim off in every relay, then --step 3 --reclaim-disabled");
                    return Ok(exit_code::OK);
                }
                match deadline {
                    Some(d) if Instant::now() < d => {
                        bar.set_message(format!("{processing} processing, {published} published"));
                        tokio::time::sleep(Duration::from_secs(1).min(d - Instant::now())).await;
                        all = statuses(ctx, conn, tables, args.reclaim_disabled).await?;
                    }
                    _ => {
                        bar.finish_and_clear();
                        print_statuses(ctx, &all);
                        return Err(Error::Refused(format!(
                            "step 2 is not done: {}",
                            blockers(&all).join("; ")
                        ))
                        .into());
                    }
                }
            }
        }
        _ => step3(ctx, conn, tables, &all, &args).await,
    }
}

async fn step3(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    tables: &[Table],
    all: &[StorageStatus],
    args: &ToConsumeArgs,
) -> anyhow::Result<u8> {
    let drops: Vec<DropColumns> = tables
        .iter()
        .zip(all)
        .filter_map(|((_, table), s)| {
            DropColumns::new(
                table,
                s.has_processing_at,
                s.has_published_at,
                &s.indexes_on_dropped_columns,
            )
        })
        .collect();
    if drops.is_empty() {
        ctx.out.note("already consume-only: nothing to drop");
        return Ok(exit_code::OK);
    }
    let blocked = blockers(all);
    if args.dry_run {
        let scripts: Vec<String> = drops
            .iter()
            .map(|d| d.script(args.lock_timeout, args.check_timeout))
            .collect();
        ctx.out.data(&scripts.join("\n\n"));
        if !blocked.is_empty() {
            ctx.out.warn(&format!(
                "step 3 would be refused now: {}",
                blocked.join("; ")
            ));
        }
        return Ok(exit_code::OK);
    }
    if !blocked.is_empty() {
        return Err(Error::Refused(format!("step 3 refused: {}", blocked.join("; "))).into());
    }
    let what: Vec<String> = drops
        .iter()
        .map(|d| format!("{} from {}", d.columns.join(" and "), d.table.plain()))
        .collect();
    super::confirm::confirm(
        ctx.yes,
        &format!("drop {} (cannot be undone)", what.join("; ")),
    )?;
    for d in &drops {
        drop_columns(conn, d, args).await?;
        ctx.out.data(&format!(
            "dropped: {} from {}",
            d.columns.join(", "),
            d.table.plain()
        ));
        if !d.indexes.is_empty() {
            ctx.out
                .data(&format!("dropped with them: {}", d.indexes.join(", ")));
        }
    }
    ctx.out
        .note("the table is consume-only; retire the retention job");
    Ok(exit_code::OK)
}

/// Step 3 on one table: lock it, re-check under the lock (bounded by `--check-timeout`), drop.
async fn drop_columns(
    conn: &mut sqlx::PgConnection,
    d: &DropColumns,
    args: &ToConsumeArgs,
) -> Result<(), Error> {
    let table = &d.table;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result = consume_move::drop_columns_locked(
            conn,
            table,
            &d.alter(),
            args.lock_timeout.0,
            args.check_timeout.0,
        )
        .await;
        let code = result.as_ref().err().and_then(db::pg_code);
        match result {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(reason)) => {
                return Err(Error::Refused(format!(
                    "step 3 refused on {}: {reason}",
                    table.plain()
                )));
            }
            Err(_)
                if code.as_deref() == Some(db::sqlstate::LOCK_NOT_AVAILABLE)
                    && attempt <= args.retries =>
            {
                crate::schema::postgres::backoff(attempt).await;
            }
            Err(_) if code.as_deref() == Some(db::sqlstate::LOCK_NOT_AVAILABLE) => {
                return Err(Error::LockBusy(format!(
                    "gave up locking {} after {attempt} attempts of {}; retry when the table is quieter",
                    table.plain(),
                    args.lock_timeout
                )));
            }
            Err(_) if code.as_deref() == Some(db::sqlstate::QUERY_CANCELED) => {
                return Err(Error::LockBusy(format!(
                    "the re-check of {} under its lock took longer than --check-timeout {}: nothing was dropped (is the claim index on status present?); retry, or raise --check-timeout",
                    table.plain(),
                    args.check_timeout
                )));
            }
            Err(e) => {
                return Err(Error::pg(format!("step 3 failed on {}", table.plain()), e));
            }
        }
    }
}
