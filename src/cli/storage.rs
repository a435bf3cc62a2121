//! `outboxctl storage status | to-consume`: the specification's move from retain to consume
//! storage as a guided procedure, with checks that refuse unsafe steps.
//!
//! 1. Deploy relays with `storage: consume`, keeping reclaim on (cannot be observed: confirm).
//! 2. Wait until no `processing` row is left and the retention job has removed published rows.
//! 3. With reclaim off, drop `processing_at`, `published_at` and the indexes on them, in one
//!    transaction that first locks the table and re-checks step 2, so no row slips in between.

use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde::Serialize;
use sqlx::{Connection, Row};

use super::Ctx;
use super::inspect;
use crate::config::Dur;
use crate::exit_code;
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
}

/// Published rows are counted up to this many (an exact count of millions is not needed).
const PUBLISHED_CAP: i64 = 100_000;

#[derive(Debug, Serialize)]
pub struct StorageStatus {
    pub table: String,
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

async fn status(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    table: &QualifiedName,
    reclaim_disabled: bool,
) -> Result<StorageStatus, Error> {
    let facts = crate::schema::postgres::table_facts(conn, table)
        .await
        .map_err(|e| Error::Runtime(db::pg_message(&e)))?
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
    let ops = crate::store::pg_ops::PgOps::open(conn, table.clone()).await?;
    let routes: Vec<String> = crate::db::pg::query_scalar(&ops.routes_sql())
        .fetch_all(&mut *ops.conn)
        .await
        .map_err(|e| Error::Runtime(db::pg_message(&e)))?;
    let row = crate::db::pg::query(&format!(
        "SELECT (SELECT count(*) FROM {table} WHERE outbox_route = ANY($1) AND status = 'processing') AS processing,
                (SELECT count(*) FROM (SELECT 1 FROM {table} WHERE outbox_route = ANY($1) AND status = 'published' LIMIT $2) p) AS published"
    ))
    .bind(&routes)
    .bind(PUBLISHED_CAP)
    .fetch_one(&mut *ops.conn)
    .await
    .map_err(|e| Error::Runtime(db::pg_message(&e)))?;
    let processing: i64 = row.get("processing");
    let published: i64 = row.get("published");
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

fn print_status(ctx: &Ctx, s: &StorageStatus) {
    if ctx.out.is_json() {
        ctx.out.json(s);
        return;
    }
    let yn = |b: bool| if b { "present" } else { "dropped" };
    let mut lines = vec![
        format!("table:            {}", s.table),
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
    ];
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
    ctx.out.data(&lines.join("\n"));
}

pub async fn run(ctx: &Ctx, cmd: StorageCommand) -> anyhow::Result<u8> {
    let targets = inspect::pg_targets(ctx, None)?;
    let mut conn = inspect::connect(ctx).await?;
    let table = targets
        .first()
        .ok_or_else(|| Error::Runtime("no outbox configured".into()))?
        .table
        .clone();
    match cmd {
        StorageCommand::Status => {
            let s = status(ctx, &mut conn, &table, false).await?;
            print_status(ctx, &s);
            Ok(exit_code::OK)
        }
        StorageCommand::ToConsume(args) => to_consume(ctx, &mut conn, &table, args).await,
    }
}

async fn to_consume(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    table: &QualifiedName,
    args: ToConsumeArgs,
) -> anyhow::Result<u8> {
    let mut s = status(ctx, conn, table, args.reclaim_disabled).await?;
    let step = match (args.step, s.next_step) {
        (Some(n), _) => n,
        (None, Some(n)) => n,
        (None, None) => {
            ctx.out.note(&format!(
                "{} is already consume-only: nothing to do",
                table.plain()
            ));
            return Ok(exit_code::OK);
        }
    };
    match step {
        1 => {
            ctx.out.data(&format!(
                "step 1: deploy every relay of {} with storage: consume, keeping reclaim_stale_after set.\n\
                 Their claims take pending rows, and reclaim returns the processing rows retain relays left behind.\n\
                 Relays (outboxctl's or forze's) cannot be observed from the database: confirm when they run.",
                table.plain()
            ));
            super::confirm::confirm(
                ctx.global.yes,
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
                if s.processing == 0 && s.published == 0 {
                    bar.finish_and_clear();
                    ctx.out.note("step 2 done: no processing and no published rows; next: turn reclaim off in every relay, then --step 3 --reclaim-disabled");
                    return Ok(exit_code::OK);
                }
                match deadline {
                    Some(d) if Instant::now() < d => {
                        bar.set_message(format!(
                            "{} processing, {} published",
                            s.processing, s.published
                        ));
                        tokio::time::sleep(Duration::from_secs(1).min(d - Instant::now())).await;
                        s = status(ctx, conn, table, args.reclaim_disabled).await?;
                    }
                    _ => {
                        bar.finish_and_clear();
                        print_status(ctx, &s);
                        return Err(Error::Refused(format!(
                            "step 2 is not done: {}",
                            s.blockers.join("; ")
                        ))
                        .into());
                    }
                }
            }
        }
        _ => step3(ctx, conn, table, &s, &args).await,
    }
}

async fn step3(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    table: &QualifiedName,
    s: &StorageStatus,
    args: &ToConsumeArgs,
) -> anyhow::Result<u8> {
    if !s.has_processing_at && !s.has_published_at {
        ctx.out.note(&format!(
            "{} is already consume-only: nothing to drop",
            table.plain()
        ));
        return Ok(exit_code::OK);
    }
    let drops: Vec<&str> = [
        ("processing_at", s.has_processing_at),
        ("published_at", s.has_published_at),
    ]
    .into_iter()
    .filter(|(_, has)| *has)
    .map(|(c, _)| c)
    .collect();
    let alter = format!(
        "ALTER TABLE {table} {};",
        drops
            .iter()
            .map(|c| format!("DROP COLUMN {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let script = format!(
        "BEGIN;\nSET LOCAL lock_timeout = '{}';\nLOCK TABLE {table} IN ACCESS EXCLUSIVE MODE;\n-- refuse if any processing or published row exists\n{alter}\n-- drops with them: {}\nCOMMIT;",
        args.lock_timeout,
        if s.indexes_on_dropped_columns.is_empty() {
            "no index".to_owned()
        } else {
            s.indexes_on_dropped_columns.join(", ")
        }
    );
    if args.dry_run {
        ctx.out.data(&script);
        if !s.blockers.is_empty() {
            ctx.out.warn(&format!(
                "step 3 would be refused now: {}",
                s.blockers.join("; ")
            ));
        }
        return Ok(exit_code::OK);
    }
    if !s.blockers.is_empty() {
        return Err(Error::Refused(format!("step 3 refused: {}", s.blockers.join("; "))).into());
    }
    super::confirm::confirm(
        ctx.global.yes,
        &format!(
            "drop {} from {} (cannot be undone)",
            drops.join(" and "),
            table.plain()
        ),
    )?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result: Result<Result<(), String>, sqlx::Error> = async {
            let mut tx = conn.begin().await?;
            crate::schema::postgres::set_local_lock_timeout(&mut tx, args.lock_timeout.0).await?;
            sqlx::raw_sql(&format!("LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"))
                .execute(&mut *tx)
                .await?;
            let busy: bool = crate::db::pg::query_scalar(&format!(
                "SELECT EXISTS (SELECT 1 FROM {table} WHERE status IN ('processing', 'published'))"
            ))
            .fetch_one(&mut tx)
            .await?;
            if busy {
                tx.rollback().await?;
                return Ok(Err(
                    "a processing or published row appeared; nothing was dropped".to_owned(),
                ));
            }
            sqlx::raw_sql(&alter).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(Ok(()))
        }
        .await;
        match result {
            Ok(Ok(())) => break,
            Ok(Err(reason)) => {
                return Err(Error::Refused(format!("step 3 refused: {reason}")).into());
            }
            Err(e)
                if db::pg_code(&e).as_deref() == Some(db::sqlstate::LOCK_NOT_AVAILABLE)
                    && attempt <= args.retries =>
            {
                crate::schema::postgres::backoff(attempt).await;
            }
            Err(e) if db::pg_code(&e).as_deref() == Some(db::sqlstate::LOCK_NOT_AVAILABLE) => {
                return Err(Error::LockBusy(format!(
                    "gave up locking {} after {attempt} attempts of {}; retry when the table is quieter",
                    table.plain(),
                    args.lock_timeout
                ))
                .into());
            }
            Err(e) => {
                return Err(
                    Error::Runtime(format!("step 3 failed: {}", db::pg_message(&e))).into(),
                );
            }
        }
    }
    ctx.out.data(&format!(
        "dropped: {} from {}",
        drops.join(", "),
        table.plain()
    ));
    if !s.indexes_on_dropped_columns.is_empty() {
        ctx.out.data(&format!(
            "dropped with them: {}",
            s.indexes_on_dropped_columns.join(", ")
        ));
    }
    ctx.out
        .note("the table is consume-only; retire the retention job");
    Ok(exit_code::OK)
}
