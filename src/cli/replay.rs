//! `outboxctl replay`: publish delivered events again to `--to`, selected and in claim order,
//! from the outbox's published rows, a `postgres-table` destination or a `file:` archive;
//! `--dry-run` counts, a confirmation guards large replays, the summary prints the cursor
//! `--after` resumes from. Never changes the outbox.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::Args;
use serde::Serialize;
use uuid::Uuid;

use super::Ctx;
use super::confirm::confirm;
use crate::Error;
use crate::config::Target;
use crate::db::DbError;
use crate::exit_code;
use crate::hlc::HlcTimestamp;
use crate::model::{Storage, rfc3339};
use crate::replay::file::FileSource;
use crate::replay::{self, Cursor, Destinations, Item, Pace, ReplaySource, Selection, Tally};
use crate::store::mongo::replay::MongoPublished;
use crate::store::postgres::replay::{Lane, PgPublished, PgTable};
use crate::target::QualifiedName;

/// Replays of more events than this ask first (`--yes` answers).
pub const CONFIRM_ABOVE: u64 = 1_000;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Where to publish: any destination the relay takes (stdout, file:PATH, nats://, amqp://,
    /// redis://, kafka://, http(s)://); required unless --dry-run
    #[arg(long, value_name = "URL", required_unless_present = "dry_run")]
    pub to: Option<String>,
    /// Where delivered events are read: the outbox's published rows (default),
    /// postgres-table:SCHEMA.TABLE or file:PATH
    #[arg(long, value_name = "SOURCE")]
    pub from: Option<String>,
    /// Subject, queue, stream or topic for every route [default: the route's name]
    #[arg(long, value_name = "NAME")]
    pub channel: Option<String>,
    /// Routes to replay, in this order (repeatable or comma-separated) [default: the
    /// configured routes]
    #[arg(long = "route", value_name = "ROUTE", value_delimiter = ',')]
    pub routes: Vec<String>,
    /// Delivered at or after (RFC 3339, or a duration ago such as 2h)
    #[arg(long, value_name = "TIME", value_parser = parse_when)]
    pub since: Option<DateTime<Utc>>,
    /// Delivered before (RFC 3339, or a duration ago such as 30m)
    #[arg(long, value_name = "TIME", value_parser = parse_when)]
    pub until: Option<DateTime<Utc>>,
    /// Only this broker key (the ordering key, or the event id of a row without one)
    #[arg(long)]
    pub key: Option<String>,
    /// Only this tenant
    #[arg(long)]
    pub tenant: Option<Uuid>,
    /// Only this event type
    #[arg(long = "type", value_name = "TYPE")]
    pub event_type: Option<String>,
    /// Only these events (repeatable or comma-separated)
    #[arg(long = "event-id", value_name = "ID", value_delimiter = ',')]
    pub event_ids: Vec<Uuid>,
    /// From this HLC on (the forze_hlc header's form, or packed)
    #[arg(long, value_name = "HLC", value_parser = parse_hlc)]
    pub hlc_from: Option<i64>,
    /// Up to this HLC, inclusive
    #[arg(long, value_name = "HLC", value_parser = parse_hlc)]
    pub hlc_to: Option<i64>,
    /// Events per second at most (publishes then go one at a time)
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// Events at most
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Tries again after a refusal that may pass (200 ms apart, doubling) before stopping
    #[arg(long, value_name = "N", default_value_t = replay::RETRIES)]
    pub retries: u32,
    /// Resume after this cursor (printed by an earlier replay's summary)
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// Count what would be replayed (per route, first and last event); publish nothing
    #[arg(long)]
    pub dry_run: bool,
}

fn parse_when(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    let ago = humantime::parse_duration(text)
        .map_err(|_| format!("{text:?} is neither an RFC 3339 time nor a duration such as 2h"))?;
    chrono::Duration::from_std(ago)
        .ok()
        .and_then(|d| Utc::now().checked_sub_signed(d))
        .ok_or_else(|| format!("{text:?} is too far back"))
}

fn parse_hlc(text: &str) -> Result<i64, String> {
    if let Ok(packed) = text.parse::<i64>() {
        return HlcTimestamp::unpack(packed)
            .map(|_| packed)
            .map_err(|e| e.to_string());
    }
    HlcTimestamp::parse(text)
        .map(HlcTimestamp::pack)
        .map_err(|_| format!("{text:?} is not an HLC (e.g. 001764583200000.00003, or packed)"))
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let text = text.strip_suffix("/s").unwrap_or(text);
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!(
            "{text:?} is not a positive rate (events per second)"
        )),
    }
}

/// Where `--from` reads.
enum From {
    Published,
    Table(QualifiedName),
    File(PathBuf),
}

impl From {
    /// The source as a cursor names its kind ([`Cursor::source_kind`]).
    fn kind(&self) -> &'static str {
        match self {
            From::Published => "the outbox's published rows",
            From::Table(_) => "a postgres-table destination",
            From::File(_) => "a file: archive",
        }
    }
}

fn parse_from(text: Option<&str>) -> Result<From, Error> {
    let Some(text) = text else {
        return Ok(From::Published);
    };
    if let Some(table) = text.strip_prefix("postgres-table:") {
        return QualifiedName::parse("--from table", table)
            .map(From::Table)
            .map_err(|e| Error::Runtime(format!("--from: {e}")));
    }
    if let Some(path) = text.strip_prefix("file:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        if !path.is_empty() {
            return Ok(From::File(path.into()));
        }
    }
    Err(Error::Runtime(format!(
        "--from {text:?}: use postgres-table:SCHEMA.TABLE or file:PATH (without --from: the outbox's published rows)"
    )))
}

/// Any of the sources, opened.
enum Source {
    Published(PgPublished),
    Table(PgTable),
    Mongo(MongoPublished),
    File(Box<FileSource>),
}

impl ReplaySource for Source {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        match self {
            Source::Published(s) => s.next_page(limit).await,
            Source::Table(s) => s.next_page(limit).await,
            Source::Mongo(s) => s.next_page(limit).await,
            Source::File(s) => s.next_page(limit).await,
        }
    }
}

/// What a replay needs to open its source (once to count, once to publish).
struct Plan {
    from: From,
    selection: Selection,
    after: Option<Cursor>,
}

impl Plan {
    async fn open(&self, ctx: &Ctx) -> Result<Source, Error> {
        let after = self.after.as_ref();
        let selection = self.selection.clone();
        match (&self.from, &ctx.config.outbox.target) {
            (From::File(path), _) => Ok(Source::File(Box::new(FileSource::open(
                path, selection, after,
            )?))),
            (From::Table(table), Target::Postgres { .. }) => Ok(Source::Table(
                PgTable::open(ctx.connect_pg().await?, table.clone(), selection, after).await?,
            )),
            (From::Table(_), Target::Mongo { .. }) => Err(Error::Runtime(
                "--from postgres-table: reads a table in the configured PostgreSQL database; this configuration names MongoDB".into(),
            )),
            (From::Published, Target::Postgres { relation, .. }) => {
                let targets = crate::store::any::pg_targets(&ctx.config, selection.tenant)?;
                let mut tables: Vec<(Option<Uuid>, QualifiedName)> = Vec::new();
                for t in targets {
                    if !tables.iter().any(|(_, table)| *table == t.table) {
                        tables.push((t.tenant.filter(|_| relation.is_per_tenant()), t.table));
                    }
                }
                let lanes = tables
                    .into_iter()
                    .flat_map(|(tenant, table)| {
                        selection.routes.iter().map(move |route| Lane {
                            tenant,
                            table: table.clone(),
                            route: route.clone(),
                        })
                    })
                    .collect();
                let opts = crate::store::postgres::PgStoreOptions::from_config(
                    &ctx.config,
                    relation.clone(),
                    None,
                );
                Ok(Source::Published(
                    PgPublished::open(ctx.connect_pg().await?, opts, lanes, selection, after)
                        .await?,
                ))
            }
            (From::Published, Target::Mongo { collection, .. }) => {
                let opts = crate::store::mongo::MongoStoreOptions::from_config(
                    &ctx.config,
                    collection.clone(),
                );
                let client = ctx.connect_mongo().await?;
                Ok(Source::Mongo(
                    MongoPublished::open(&client, opts, selection, after).await?,
                ))
            }
        }
    }
}

#[derive(Serialize)]
struct Report<'a> {
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    count: u64,
    routes: &'a std::collections::BTreeMap<String, replay::RouteTally>,
    /// `--after` this resumes after the last event replayed.
    cursor: Option<&'a str>,
    elapsed_ms: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
}

pub async fn run(ctx: &Ctx, args: ReplayArgs) -> anyhow::Result<u8> {
    let from = parse_from(args.from.as_deref())?;
    let after = args
        .after
        .as_deref()
        .map(Cursor::parse)
        .transpose()
        .map_err(Error::Runtime)?;
    if let Some(c) = after.as_ref().filter(|c| c.source_kind() != from.kind()) {
        return Err(Error::Runtime(format!(
            "--after is a cursor of {}, not of {}",
            c.source_kind(),
            from.kind()
        ))
        .into());
    }
    if matches!(from, From::Published) && ctx.config.outbox.storage == Storage::Consume {
        return nothing_kept(ctx, &args).await;
    }
    let mut routes = args.routes.clone();
    if routes.is_empty() && !matches!(from, From::File(_)) {
        routes = ctx.config.relay.routes.keys().cloned().collect();
        if routes.is_empty() {
            return Err(Error::Runtime(
                "no routes to replay: pass --route ROUTE (repeatable) or configure relay.routes"
                    .into(),
            )
            .into());
        }
    }
    if matches!(from, From::File(_)) && (args.since.is_some() || args.until.is_some()) {
        return Err(Error::Runtime(
            "--since/--until select by delivery time, which a file: archive does not keep; select by --hlc-from/--hlc-to, --event-id, --key or --type".into(),
        )
        .into());
    }
    if matches!(from, From::Published)
        && (args.hlc_from.is_some() || args.hlc_to.is_some())
        && !ctx.config.outbox.hlc_ordering
    {
        return Err(Error::Runtime(
            "--hlc-from/--hlc-to need outbox.hlc_ordering: true (the rows have no hlc otherwise)"
                .into(),
        )
        .into());
    }
    let selection = Selection {
        routes,
        since: args.since,
        until: args.until,
        key: args.key.clone(),
        tenant: args.tenant,
        event_type: args.event_type.clone(),
        event_ids: args.event_ids.clone(),
        hlc_from: args.hlc_from,
        hlc_to: args.hlc_to,
    };
    // --to is checked before anything is read or contacted
    let mut to = args
        .to
        .as_deref()
        .map(|url| {
            Destinations::new(
                url,
                args.channel.clone(),
                crate::destination::BuildContext::from_config(&ctx.config),
            )
        })
        .transpose()?;
    let plan = Plan {
        from,
        selection,
        after,
    };

    let started = std::time::Instant::now();
    let pace = Pace {
        rate: args.rate,
        limit: args.limit,
        retries: args.retries,
    };
    let needs_count = args.dry_run || !ctx.yes;
    let counted = if needs_count {
        let bar = ctx.out.progress(None, "counting");
        let mut source = plan.open(ctx).await?;
        let tally = replay::count(&mut source, args.limit).await?;
        bar.finish_and_clear();
        Some(tally)
    } else {
        None
    };
    let Some(to) = to.as_mut().filter(|_| !args.dry_run) else {
        let tally = counted.unwrap_or_default();
        report(ctx, &tally, None, started, None, true);
        return Ok(exit_code::OK);
    };
    if let Some(tally) = &counted {
        if tally.count == 0 {
            ctx.out
                .note("nothing to replay: no delivered event matches");
            report(ctx, tally, Some(to.shown()), started, None, false);
            return Ok(exit_code::OK);
        }
        if tally.count > CONFIRM_ABOVE {
            confirm(
                ctx.yes,
                &format!(
                    "replay {} events ({}) to {}",
                    tally.count,
                    per_route(tally),
                    to.shown()
                ),
            )?;
        }
    }

    let bar = ctx
        .out
        .progress(counted.as_ref().map(|t| t.count), "replaying");
    let mut source = plan.open(ctx).await?;
    let outcome = replay::run(&mut source, to, &pace, |t| bar.set_position(t.count)).await;
    bar.finish_and_clear();
    for w in to.warnings.drain(..) {
        ctx.out.warn(&w);
    }
    match outcome {
        Ok(tally) => {
            report(ctx, &tally, Some(to.shown()), started, None, false);
            Ok(exit_code::OK)
        }
        Err(stopped) => {
            let resume = match &stopped.tally.cursor {
                Some(c) => format!("resume with --after {c}"),
                None => match &args.after {
                    Some(c) => format!("resume with --after {c}"),
                    None => "nothing was replayed; run it again".into(),
                },
            };
            let error = format!("{}; {resume}", stopped.error);
            report(
                ctx,
                &stopped.tally,
                Some(to.shown()),
                started,
                Some(error.clone()),
                false,
            );
            Err(match stopped.error {
                Error::Db(DbError::Connect { target, reason }) => Error::Db(DbError::Connect {
                    target,
                    reason: format!("{reason}; {resume}"),
                }),
                _ => Error::Runtime(error),
            }
            .into())
        }
    }
}

fn per_route(tally: &Tally) -> String {
    tally
        .routes
        .iter()
        .map(|(r, t)| format!("{r}: {}", t.count))
        .collect::<Vec<_>>()
        .join(", ")
}

fn report(
    ctx: &Ctx,
    tally: &Tally,
    to: Option<String>,
    started: std::time::Instant,
    stopped: Option<String>,
    dry_run: bool,
) {
    let elapsed = started.elapsed();
    // replayed messages own stdout when they go there: the report goes to stderr
    let data = |text: &str| {
        if matches!(to.as_deref(), Some("stdout" | "-")) {
            eprintln!("{text}");
        } else {
            ctx.out.data(text);
        }
    };
    if ctx.out.is_json() {
        let report = Report {
            dry_run,
            to: to.clone(),
            count: tally.count,
            routes: &tally.routes,
            cursor: tally.cursor.as_deref(),
            elapsed_ms: elapsed.as_millis(),
            stopped,
        };
        let text = match ctx.out.format {
            super::output::Format::Jsonl => serde_json::to_string(&report),
            _ => serde_json::to_string_pretty(&report),
        };
        data(&text.expect("reports serialise"));
        return;
    }
    let edge = |e: &Option<replay::Edge>| {
        e.as_ref().map_or(String::new(), |e| {
            let at = e.published_at.map(rfc3339).unwrap_or_default();
            format!("{} {at}", e.event_id).trim_end().to_owned()
        })
    };
    let mut table = super::output::table();
    table.set_header(vec!["route", "events", "first", "last"]);
    for (route, t) in &tally.routes {
        table.add_row(vec![
            route.clone(),
            t.count.to_string(),
            edge(&t.first),
            edge(&t.last),
        ]);
    }
    if !tally.routes.is_empty() {
        data(&table.to_string());
    }
    let rate = tally.count as f64 / elapsed.as_secs_f64().max(1e-3);
    let what = if dry_run {
        format!("would replay {} event(s)", tally.count)
    } else {
        format!(
            "replayed {} event(s) to {} in {:.1} s ({rate:.0}/s)",
            tally.count,
            to.unwrap_or_default(),
            elapsed.as_secs_f64()
        )
    };
    match &tally.cursor {
        Some(c) if !dry_run => ctx
            .out
            .note(&format!("{what}; the next replay resumes with --after {c}")),
        _ => ctx.out.note(&what),
    }
}

/// Consume storage: delivered rows are gone. Says what keeps events instead; with
/// `--event-id … --dry-run`, looks them up in the delivery log to prove delivery.
async fn nothing_kept(ctx: &Ctx, args: &ReplayArgs) -> anyhow::Result<u8> {
    let Target::Postgres { delivery_log, .. } = &ctx.config.outbox.target else {
        unreachable!("MongoDB keeps retain storage")
    };
    let log_note = match delivery_log {
        Some(log) => format!(", and the delivery log {log} keeps ids but no payload"),
        None => String::new(),
    };
    let why = format!(
        "nothing holds the events to replay: storage: consume deletes delivered rows{log_note}; replay from a postgres-table destination (--from postgres-table:SCHEMA.TABLE) or a file: archive (--from file:PATH), configured as a route's destination or dead_letter_to"
    );
    if delivery_log.is_none() || args.event_ids.is_empty() || !args.dry_run {
        let hint = if delivery_log.is_some() {
            "; to prove delivery, look events up in the delivery log with --event-id ID… --dry-run"
        } else {
            ""
        };
        return Err(Error::Runtime(format!("{why}{hint}")).into());
    }
    let targets = crate::store::any::targets(&ctx.config, args.tenant)?;
    let mut conn = ctx.connect().await?;
    let mut found = Vec::new();
    let mut seen = Vec::new();
    for t in &targets {
        let table = t.pg.as_ref().map(|p| p.table.clone());
        if seen.contains(&table) {
            continue;
        }
        seen.push(table);
        let mut ops = crate::store::any::open(&ctx.config, &mut conn, t).await?;
        for id in &args.event_ids {
            use crate::store::ops::OpsStore;
            found.push(ops.find_event(*id).await?);
        }
    }
    if ctx.out.is_json() {
        ctx.out
            .json(&serde_json::json!({ "replayable": false, "reason": why, "events": found }));
    } else {
        let mut table = super::output::table();
        table.set_header(vec!["event", "route", "row id", "delivered at"]);
        for e in &found {
            match e.deliveries.as_deref() {
                Some(ds) if !ds.is_empty() => {
                    for d in ds {
                        table.add_row(vec![
                            e.event_id.to_string(),
                            d.route.clone(),
                            d.id.to_string(),
                            rfc3339(d.published_at),
                        ]);
                    }
                }
                _ => {
                    table.add_row(vec![
                        e.event_id.to_string(),
                        String::new(),
                        String::new(),
                        "not in the delivery log".into(),
                    ]);
                }
            }
        }
        ctx.out.data(&table.to_string());
        ctx.out.note(&why);
    }
    Ok(exit_code::OK)
}
