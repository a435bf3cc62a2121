//! `outboxctl replay`: publish delivered events again to `--to` ([`crate::replay`]); `--dry-run`
//! counts, a confirmation guards large replays, the summary gives the cursor `--after` resumes at.

use chrono::{DateTime, Utc};
use clap::Args;
use uuid::Uuid;

use super::Ctx;
use crate::ops::replay as ops;
use crate::replay::request::{Prepared, Request, parse_hlc, parse_rate, parse_time};
use crate::replay::{self, Destinations, Pace, Selection, Tally, Tries};

/// Replays of more events than this ask first (`--yes` answers).
pub const CONFIRM_ABOVE: u64 = 1_000;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Where to publish: any destination the relay takes (stdout, file:PATH, nats://, amqp://,
    /// redis://, kafka://, http(s)://); required unless --dry-run
    #[arg(long, value_name = "URL", required_unless_present = "dry_run")]
    pub to: Option<crate::dburl::SecretText>,
    /// Where delivered events are read: the outbox's published rows (default),
    /// postgres-table:SCHEMA.TABLE or file:PATH
    #[arg(long, value_name = "SOURCE")]
    pub from: Option<crate::dburl::SecretText>,
    /// Subject, queue, stream or topic for every route [default: the route's name]
    #[arg(long, value_name = "NAME")]
    pub channel: Option<String>,
    /// Routes to replay, in this order (repeatable or comma-separated) [default: the
    /// configured routes]
    #[arg(long = "route", value_name = "ROUTE", value_delimiter = ',', value_parser = crate::model::parse_route)]
    pub routes: Vec<String>,
    /// Delivered at or after (RFC 3339, or a duration ago such as 2h)
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub since: Option<DateTime<Utc>>,
    /// Delivered before (RFC 3339, or a duration ago such as 30m)
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub until: Option<DateTime<Utc>>,
    /// Only this broker key (the ordering key, or the event id of a row without one)
    #[arg(long, value_parser = crate::model::parse_given)]
    pub key: Option<String>,
    /// Only this tenant
    #[arg(long)]
    pub tenant: Option<Uuid>,
    /// Only this event type
    #[arg(long = "type", value_name = "TYPE", value_parser = crate::model::parse_given)]
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

impl ReplayArgs {
    fn request(&self) -> Request {
        Request {
            from: self.from.clone(),
            to: self.to.clone(),
            after: self.after.clone(),
            selection: Selection {
                routes: self.routes.clone(),
                since: self.since,
                until: self.until,
                key: self.key.clone(),
                tenant: self.tenant,
                event_type: self.event_type.clone(),
                event_ids: self.event_ids.clone(),
                hlc_from: self.hlc_from,
                hlc_to: self.hlc_to,
            },
        }
    }
}

pub async fn run(ctx: &Ctx, args: ReplayArgs) -> anyhow::Result<()> {
    let plan = match replay::request::prepare(&ctx.config, args.request())? {
        Prepared::Replay(plan) => plan,
        Prepared::NothingKept => return nothing_kept(ctx, &args).await,
    };
    plan.warnings.iter().for_each(|w| ctx.out.warn(w));
    // --to is checked before anything is read or contacted
    let build = crate::destination::BuildContext::from_config(&ctx.config);
    let mut to = (args.to.as_ref())
        .map(|url| Destinations::new(url.expose(), args.channel.clone(), build))
        .transpose()?;
    let started = std::time::Instant::now();
    let pace = Pace {
        rate: args.rate,
        limit: args.limit,
        tries: Tries {
            retries: args.retries,
            timeout: ctx.config.relay.publish_timeout,
        },
    };
    let mut replay = ops::Replay::new(&ctx.config, ctx.connect_timeout, *plan);
    let bar = ctx.out.progress(None, "counting");
    replay.count(args.limit).await?;
    bar.finish_and_clear();
    let done = |tally: &Tally, to: Option<&Destinations>, stopped: Option<String>| {
        let to = to.map(Destinations::shown);
        let summary = tally.summary(to.is_none(), to, started.elapsed(), stopped);
        // replayed messages own stdout when they go there: the summary goes to stderr
        let out = ctx.out.on_stderr(summary.to_stdout());
        out.show(&summary, || {
            if !tally.routes.is_empty() {
                out.table(["route", "events", "first", "last"], summary.rows());
            }
            ctx.out.note(&summary.line());
        });
    };
    let Some(to) = to.as_mut().filter(|_| !args.dry_run) else {
        done(&replay.counted.unwrap_or_default(), None, None);
        return Ok(());
    };
    if let Some(tally) = &replay.counted {
        if tally.count == 0 {
            ctx.out
                .note("nothing to replay: no delivered event matches");
            done(tally, Some(to), None);
            return Ok(());
        }
        if tally.count > CONFIRM_ABOVE {
            let (n, routes, shown) = (tally.count, tally.per_route(), to.shown());
            ctx.confirm(&format!("replay {n} events ({routes}) to {shown}"))?;
        }
    }
    let bar = (ctx.out).progress(replay.counted.as_ref().map(|t| t.count), "replaying");
    let outcome = replay
        .publish(to, pace, |t| bar.set_position(t.count))
        .await?;
    bar.finish_and_clear();
    to.warnings.drain(..).for_each(|w| ctx.out.warn(&w));
    let stopped = match outcome {
        Err(stopped) if !stopped.reader_quit() => stopped,
        // stdout whose reader quit (`| head`): a closed pipe exits 0, as for any command
        Err(_) => return Ok(()),
        Ok(tally) => {
            done(&tally, Some(to), None);
            return Ok(());
        }
    };
    let resume = stopped.resume(args.after.as_deref());
    let why = format!("{}; {resume}", stopped.error);
    done(&stopped.tally, Some(to), Some(why));
    Err(stopped.into_error(&resume).into())
}

/// Consume storage: delivered rows are gone. Says what keeps events instead; with
/// `--event-id … --dry-run`, looks them up in the delivery log to prove delivery.
async fn nothing_kept(ctx: &Ctx, args: &ReplayArgs) -> anyhow::Result<()> {
    let asked = args.request().selection;
    let proof = ops::delivered(&ctx.config, ctx.connect_timeout, &asked, args.dry_run).await?;
    ctx.out.show(&proof, || {
        let header = ["event", "route", "row id", "delivered at"];
        ctx.out.table(header, proof.rows());
        ctx.out.note(&proof.reason);
    });
    Ok(())
}
