//! `outboxctl relay --once | --loop`: run the relay over the configured routes.

use clap::Args;

use super::Ctx;
use crate::relay::assemble::{Assembled, RelayRequest, assemble};
use crate::relay::serve::{self, LoopOptions};
use crate::relay::{PassReport, RouteStats, Shutdown};
use crate::store::PassTarget;
use crate::text::{ms, opt, with_tenant};

#[derive(Debug, Args)]
#[group(id = "mode", required = true, multiple = false)]
pub struct Mode {
    /// Drain every route until a claim comes back short, print a summary, exit
    #[arg(long, group = "mode")]
    pub once: bool,
    /// Run until SIGTERM/SIGINT, then drain and exit 0
    #[arg(long = "loop", group = "mode")]
    pub run_loop: bool,
}

const ADDR: &str = "metrics_addr"; // the endpoint's flag: its settings require it, refuse --once
#[derive(Debug, Args)]
pub struct RelayArgs {
    #[command(flatten)]
    pub mode: Mode,
    /// Relay only these routes (repeatable or comma-separated; default: every route in relay.routes)
    #[arg(long = "route", value_name = "ROUTE", value_delimiter = ',', value_parser = crate::model::parse_route)]
    pub routes: Vec<String>,
    /// Destination for the given routes (default stdout): stdout, file:PATH,
    /// postgres-table:SCHEMA.TABLE, nats://, amqp://, redis://, kafka://, http(s)://
    #[arg(long, value_name = "URL")]
    pub to: Option<crate::dburl::SecretText>,
    /// With --once: stop each route after this many passes
    #[arg(long, value_name = "N", conflicts_with = "run_loop", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_passes: Option<u64>,
    /// With --loop: serve /metrics (Prometheus), /healthz and /readyz on this address
    #[arg(long, value_name = "ADDR", conflicts_with = "once")]
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// With --metrics-addr: /healthz fails when a route's passes have failed for longer than this
    #[arg(long, value_name = "DURATION", default_value = "60s", requires = ADDR, conflicts_with = "once")]
    pub health_max_failing: crate::duration::Dur,
    /// With --metrics-addr: how long a client may take to send its request headers
    #[arg(long, value_name = "DURATION", default_value = "5s", requires = ADDR, conflicts_with = "once")]
    pub metrics_header_timeout: crate::duration::Dur,
    /// With --metrics-addr: at most this many connections at once (an idle one makes room)
    #[arg(
        long,
        value_name = "N",
        default_value_t = crate::relay::endpoint::MAX_CONNECTIONS,
        requires = ADDR, conflicts_with = "once",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_535)
    )]
    pub metrics_max_connections: usize,
}

impl RelayArgs {
    fn request(&self) -> RelayRequest {
        RelayRequest {
            routes: self.routes.clone(),
            to: self.to.clone(),
            looping: !self.mode.once,
            stop: None,
        }
    }

    fn loop_options(&self) -> LoopOptions {
        LoopOptions {
            metrics_addr: self.metrics_addr,
            health_max_failing: self.health_max_failing.0,
            header_read_timeout: self.metrics_header_timeout.0,
            max_connections: self.metrics_max_connections,
        }
    }
}

pub async fn run(ctx: &Ctx, args: RelayArgs) -> anyhow::Result<()> {
    // from the start a signal drains: --loop's shutdown drain (exit 0), --once's pass in
    // flight (exit 130); one while it starts ends it at once
    let shutdown = Shutdown::default();
    shutdown.on_signals();
    let mut warn = |w: &str| ctx.out.warn(w);
    let request = RelayRequest {
        stop: Some(shutdown.clone()),
        ..args.request()
    };
    let Some(assembled) = assemble(&ctx.config, ctx.connect_timeout, &request, &mut warn).await?
    else {
        let once = args.mode.once.then_some(&shutdown);
        return Ok(once.map_or(Ok(()), |s| serve::once_verdict(&[], s))?);
    };
    if args.mode.once {
        let to_stdout = assembled.to_stdout;
        let bar = ctx.out.progress(None, "relaying");
        let mut published = 0u64;
        let on_pass = |target: &PassTarget, report: &PassReport| {
            published += report.published as u64;
            bar.set_message(format!("{target}: {published} published"));
            if let Some(e) = &report.error {
                bar.suspend(|| tracing::warn!(route = %target, "pass failed: {e}"));
            }
        };
        let drained = || bar.finish_and_clear();
        let stats = serve::once(assembled, args.max_passes, on_pass, drained, &shutdown).await;
        print_summary(ctx, &stats, to_stdout);
        return Ok(serve::once_verdict(&stats, &shutdown)?);
    }
    let Assembled {
        relay, heartbeat, ..
    } = assembled;
    let options = args.loop_options();
    let start = serve::start(
        &ctx.config,
        ctx.connect_timeout,
        relay,
        heartbeat,
        &options,
        &mut warn,
        &shutdown,
    );
    let Some(serving) = start.await? else {
        return Ok(());
    };
    let stats = serving.run(&shutdown).await;
    if ctx.log_format == super::LogFormat::Json {
        // stderr carries JSON log lines only
        tracing::info!(summary = %serde_json::to_string(&stats).expect("serialises"), "relay summary");
    } else {
        print_summary(ctx, &stats, true);
    }
    Ok(())
}

fn print_summary(ctx: &Ctx, stats: &[RouteStats], to_stderr: bool) {
    let out = ctx.out.on_stderr(to_stderr);
    let tenants = stats.iter().any(|s| s.tenant.is_some());
    let header = "route,claimed,published,retried,failed,failed passes,seconds,events/s,lag p50 ms,lag p99 ms";
    let header = with_tenant(tenants, header);
    let listed = out.list(stats, "no routes relayed", &header, |s| {
        let mut row = vec![s.route.clone()];
        row.extend(tenants.then(|| opt(s.tenant)));
        row.extend(
            [s.claimed, s.published, s.retried, s.failed, s.failed_passes].map(|n| n.to_string()),
        );
        row.extend([
            format!("{:.2}", s.seconds),
            format!("{:.0}", s.events_per_second),
        ]);
        row.extend([ms(s.lag_p50_ms), ms(s.lag_p99_ms)]);
        row
    });
    if listed {
        out.lines("", stats.iter().flat_map(RouteStats::notes));
    }
}
