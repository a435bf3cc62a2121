//! `outboxctl doctor`: the things the specification warns about, each ok / warn / fail.
//! Exit 1 on any fail.

use clap::Args;
use serde::Serialize;

use super::Ctx;
use super::inspect;
use crate::duration::Dur;
use crate::exit_code;
use crate::hlc::MAX_DRIFT_MS;
use crate::schema::partitions;
use crate::store::ops::OpsStore;
use crate::store::postgres::PgStoreOptions;
use crate::{Error, db};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Fail when the oldest pending row is older than this
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub max_pending_age: Dur,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub check: &'static str,
    pub level: Level,
    pub detail: String,
}

fn check(checks: &mut Vec<Check>, name: &'static str, level: Level, detail: impl Into<String>) {
    checks.push(Check {
        check: name,
        level,
        detail: detail.into(),
    });
}

/// The checks that read rows: stale processing, failed, oldest pending, the HLC mark.
async fn row_checks<O: OpsStore>(
    ops: &mut O,
    name: &str,
    tenant: Option<uuid::Uuid>,
    args: &DoctorArgs,
    checks: &mut Vec<Check>,
) -> Result<(), Error> {
    let now = chrono::Utc::now();
    let routes = ops.routes().await?;
    let mut stale = 0;
    let mut failed = 0;
    let mut oldest: Option<chrono::DateTime<chrono::Utc>> = None;
    for route in &routes {
        let s = ops.summary(route, tenant, now).await?;
        stale += s.processing_stale.unwrap_or(0);
        failed += s.failed;
        oldest = match (oldest, s.oldest_pending) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    check(
        checks,
        "stale processing",
        if stale > 0 { Level::Warn } else { Level::Ok },
        format!("{stale} processing row(s) older than reclaim_stale_after in {name}"),
    );
    check(
        checks,
        "failed rows",
        if failed > 0 { Level::Warn } else { Level::Ok },
        format!(
            "{failed} failed row(s) in {name}{}",
            if failed > 0 {
                ": see outboxctl inspect failed"
            } else {
                ""
            }
        ),
    );
    match oldest {
        Some(o) if (now - o).to_std().unwrap_or_default() > args.max_pending_age.0 => check(
            checks,
            "oldest pending",
            Level::Fail,
            format!(
                "the oldest pending row of {name} is {} old (limit {})",
                inspect::age(now - o),
                args.max_pending_age
            ),
        ),
        Some(o) => check(
            checks,
            "oldest pending",
            Level::Ok,
            format!(
                "the oldest pending row of {name} is {} old",
                inspect::age(now - o)
            ),
        ),
        None => check(
            checks,
            "oldest pending",
            Level::Ok,
            format!("nothing pending in {name}"),
        ),
    }
    if let Some(cps) = ops.checkpoints().await? {
        match cps.iter().max_by_key(|c| c.hlc) {
            Some(m) if (m.physical - now).num_milliseconds() > MAX_DRIFT_MS as i64 => check(
                checks,
                "hlc mark",
                Level::Fail,
                format!(
                    "the HLC mark is {} ahead of the wall clock",
                    inspect::age(m.physical - now)
                ),
            ),
            Some(_) => check(
                checks,
                "hlc mark",
                Level::Ok,
                "the HLC mark is not ahead of the wall clock",
            ),
            None => check(checks, "hlc mark", Level::Ok, "no HLC mark yet"),
        }
    }
    Ok(())
}

/// MongoDB: the claim index exists and the claim's plan uses it; a replica set for transactions.
async fn mongo_checks(ctx: &Ctx, args: &DoctorArgs, checks: &mut Vec<Check>) -> Result<(), Error> {
    use crate::store::mongo::diagnostics as diag;
    let crate::config::Target::Mongo { collection, .. } = &ctx.config.outbox.target else {
        return Ok(());
    };
    let mut conn = ctx.connect().await?;
    let crate::store::any::Conn::Mongo(client) = &conn else {
        return Ok(());
    };
    let client = client.clone();
    if diag::is_replica_set(&client).await? {
        check(
            checks,
            "transactions",
            Level::Ok,
            "a replica set: transactions (and the HLC checkpoint) work",
        );
    } else {
        check(
            checks,
            "transactions",
            Level::Warn,
            "a standalone server: no transactions, so emit with an HLC checkpoint cannot run",
        );
    }
    let indexes = diag::index_keys(&client, collection).await;
    let claim_keys = ["outbox_route", "status", "available_at", "created_at"];
    let has_claim = indexes
        .iter()
        .any(|keys| keys.iter().map(String::as_str).eq(claim_keys));
    if has_claim {
        check(
            checks,
            "claim index",
            Level::Ok,
            format!(
                "{collection} has the claim index {{ outbox_route, status, available_at, created_at }}"
            ),
        );
    } else {
        check(
            checks,
            "claim index",
            Level::Fail,
            format!(
                "{collection} has no claim index: every claim scans the collection; run outboxctl migrate"
            ),
        );
    }
    let plan =
        diag::claim_scans_collection(&client, collection, ctx.config.outbox.hlc_ordering).await;
    match plan {
        Ok(true) => check(
            checks,
            "claim plan",
            Level::Fail,
            format!("the claim on {collection} scans the collection"),
        ),
        Ok(false) => check(
            checks,
            "claim plan",
            Level::Ok,
            format!("the claim on {collection} reads through indexes"),
        ),
        Err(e) => check(checks, "claim plan", Level::Fail, e.to_string()),
    }
    for t in crate::store::any::targets(&ctx.config, None)? {
        let mut ops = crate::store::any::open(&ctx.config, &mut conn, &t).await?;
        row_checks(&mut ops, &collection.to_string(), t.tenant, args, checks).await?;
    }
    Ok(())
}

/// "Behind a pooler" where it can be told: the server listens on another port than the one
/// dialled (pgbouncer's 6432 in front of 5432). Session and transaction pooling both work.
async fn pooler(conn: &mut sqlx::PgConnection, url: &crate::dburl::DatabaseUrl) -> Option<String> {
    let dialled = db::pg::dialled_port(url)?;
    let server = db::pg::server_port_and_pid(conn).await.ok()?.0?;
    (i32::from(dialled) != server).then(|| {
        format!(
            "behind a pooler: port {dialled} dialled, the server listens on {server}; transaction and session pooling work (statement pooling cannot run outboxctl)"
        )
    })
}

pub async fn run(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<u8> {
    let mut checks = Vec::new();
    let now = chrono::Utc::now();
    if ctx.config.backend == crate::dburl::Backend::Mongo {
        drain_check(ctx, &mut checks);
        destination_checks(ctx, &mut checks).await;
        mongo_checks(ctx, &args, &mut checks).await?;
        return Ok(report(ctx, &checks));
    }
    let targets = crate::store::any::pg_targets(&ctx.config, None)?;
    let mut conn = ctx.connect_pg().await?;
    let url = ctx.config.require_url()?;
    drain_check(ctx, &mut checks);
    destination_checks(ctx, &mut checks).await;
    // pgbouncer in statement pooling refuses every transaction (and closes the connection).
    match db::pg::check_transactions(&mut conn).await {
        Err(db::DbError::Postgres { source, .. }) if db::pg::is_statement_pooling(&source) => {
            check(
                &mut checks,
                "transactions",
                Level::Fail,
                db::pg::STATEMENT_POOLING,
            );
            return Ok(report(ctx, &checks));
        }
        Err(e) => return Err(e.into()),
        Ok(()) => check(
            &mut checks,
            "transactions",
            Level::Ok,
            "transactions span statements",
        ),
    }
    match pooler(&mut conn, url).await {
        Some(detail) => check(&mut checks, "pooler", Level::Ok, detail),
        None => check(
            &mut checks,
            "pooler",
            Level::Ok,
            "no pooler seen (the server listens on the port dialled)",
        ),
    }

    for t in &targets {
        let name = t.table.plain();
        let facts = crate::schema::postgres::table_facts(&mut conn, &t.table)
            .await
            .map_err(|e| Error::pg(format!("reading {name}"), e))?;
        let Some(facts) = facts else {
            check(
                &mut checks,
                "outbox table",
                Level::Fail,
                format!("{name} does not exist; run outboxctl migrate"),
            );
            continue;
        };
        let claim_def = "btree (outbox_route, status, available_at, created_at)";
        if facts
            .indexes
            .iter()
            .any(|i| i.using == claim_def && i.valid)
        {
            check(
                &mut checks,
                "claim index",
                Level::Ok,
                format!("{name} has a valid index USING {claim_def}"),
            );
        } else {
            check(
                &mut checks,
                "claim index",
                Level::Fail,
                format!(
                    "{name} has no valid claim index: every claim reads the table; run outboxctl migrate"
                ),
            );
        }
        let relation = crate::target::RelationSpec::parse("relation", &name)
            .map_err(|e| Error::Runtime(e.to_string()))?;
        // the plan of the claim alone: no delivery log, no traceparent column needed
        let opts = PgStoreOptions {
            propagate_trace: false,
            ..PgStoreOptions::from_config(&ctx.config, relation, None)
        };
        let mut ops = crate::store::any::open_pg(&ctx.config, &mut conn, t).await?;
        let routes = ops.routes().await?;
        let probe_route = routes
            .first()
            .cloned()
            .unwrap_or_else(|| "outboxctl-doctor".into());
        let tenant_param = ctx.config.outbox.tenant_aware.then_some(t.tenant).flatten();
        match crate::store::postgres::diagnostics::claim_plan(
            &mut *ops.conn,
            &t.table,
            &opts,
            &probe_route,
            tenant_param,
            now,
        )
        .await
        {
            Ok(crate::store::postgres::diagnostics::ClaimPlan {
                seq_scans: n,
                estimated_rows: rows,
            }) => {
                if n > 0 && rows < 10_000.0 {
                    check(
                        &mut checks,
                        "claim plan",
                        Level::Ok,
                        format!(
                            "{name} is small (~{rows:.0} rows): the planner reads it whole; that changes as it grows"
                        ),
                    );
                } else if n == 0 {
                    check(
                        &mut checks,
                        "claim plan",
                        Level::Ok,
                        format!("the claim on {name} reads through indexes"),
                    );
                } else {
                    check(
                        &mut checks,
                        "claim plan",
                        Level::Fail,
                        format!("the claim on {name} plans {n} sequential scan(s)"),
                    );
                }
            }
            Err(e) => check(
                &mut checks,
                "claim plan",
                Level::Fail,
                format!("cannot plan the claim on {name}: {}", db::pg_message(&e)),
            ),
        }
        let tenant = if ctx.config.outbox.tenant_aware {
            t.tenant
        } else {
            None
        };
        row_checks(&mut ops, &name, tenant, &args, &mut checks).await?;
        match crate::store::postgres::diagnostics::table_health(&mut conn, &t.table).await {
            Ok(health) => {
                for f in crate::vacuum::assess(&health, now) {
                    let level = match f.severity {
                        crate::vacuum::Severity::Ok => Level::Ok,
                        crate::vacuum::Severity::Warn => Level::Warn,
                    };
                    check(&mut checks, f.check, level, f.detail);
                }
            }
            Err(e) => check(
                &mut checks,
                "queue table",
                Level::Warn,
                format!("cannot read {name}'s statistics: {}", db::pg_message(&e)),
            ),
        }
        if let Some(log) = &t.log {
            match crate::store::postgres::partitions::read(&mut conn, log).await {
                Ok(facts) => {
                    let rows = match &facts.default {
                        Some(d) => Some(
                            crate::store::postgres::partitions::default_rows(&mut conn, d).await?,
                        ),
                        None => None,
                    };
                    let findings = partitions::check(
                        now.date_naive(),
                        ctx.config.partitions.ahead_days,
                        &facts.bounds(),
                        rows,
                    );
                    if findings.is_empty() {
                        check(
                            &mut checks,
                            "delivery log",
                            Level::Ok,
                            format!(
                                "{}: default partition empty, days ahead attached, no gaps",
                                log.plain()
                            ),
                        );
                    }
                    for f in findings {
                        let level = match f {
                            partitions::Finding::FewDaysAhead { attached, .. } if attached > 0 => {
                                Level::Warn
                            }
                            partitions::Finding::Gap { .. } => Level::Warn,
                            _ => Level::Fail,
                        };
                        check(
                            &mut checks,
                            "delivery log",
                            level,
                            format!("{}: {f}", log.plain()),
                        );
                    }
                }
                Err(e) => check(&mut checks, "delivery log", Level::Fail, e.to_string()),
            }
        }
    }

    Ok(report(ctx, &checks))
}

/// Each configured route's destination, connected to and checked as the relay does at start
/// (NATS stream and its duplicate window, RabbitMQ queue, Kafka topic), without changing
/// anything: `create_stream`, `create_topic` and `declare` are checked, not carried out.
async fn destination_checks(ctx: &Ctx, checks: &mut Vec<Check>) {
    use crate::destination::{self, BuildContext, DestinationUrl};
    let build_ctx = BuildContext::from_config(&ctx.config);
    let stdout = std::sync::Arc::new(std::sync::Mutex::new(()));
    for (route, dest) in &ctx.config.relay.routes {
        let shown = format!("{route} → {}", crate::dburl::mask(&dest.to));
        let contacted = match DestinationUrl::parse(&dest.to) {
            Ok(DestinationUrl::Nats(_) | DestinationUrl::Amqp(_) | DestinationUrl::Kafka(_)) => {
                true
            }
            // a file would be created by opening it: check its folder only
            Ok(DestinationUrl::File(path)) => {
                let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
                match dir {
                    Some(d) if !d.is_dir() => check(
                        checks,
                        "destination",
                        Level::Fail,
                        format!("{shown}: folder {} does not exist", d.display()),
                    ),
                    _ => check(checks, "destination", Level::Ok, format!("{shown}: valid")),
                }
                continue;
            }
            _ => false,
        };
        let creates = dest.create_stream == Some(true)
            || dest.create_topic == Some(true)
            || dest.declare == Some(true);
        let read_only = crate::config::RouteFile {
            create_stream: None,
            create_topic: None,
            partitions: None,
            declare: None,
            ..dest.clone()
        };
        match destination::build(route, &read_only, &stdout, build_ctx).await {
            Err(e)
                if creates
                    && ["create_stream", "create_topic", "declare: true"]
                        .iter()
                        .any(|k| e.to_string().contains(k)) =>
            {
                check(
                    checks,
                    "destination",
                    Level::Ok,
                    format!("{shown}: reachable; the relay will create what is missing"),
                )
            }
            Err(e) => check(checks, "destination", Level::Fail, e.to_string()),
            Ok((_, warnings)) if warnings.iter().any(|w| w.contains("unreachable")) => check(
                checks,
                "destination",
                Level::Fail,
                format!("{shown}: {}", warnings.join("; ")),
            ),
            Ok((_, warnings)) if !warnings.is_empty() => check(
                checks,
                "destination",
                Level::Warn,
                format!("{shown}: {}", warnings.join("; ")),
            ),
            Ok(_) if contacted => check(
                checks,
                "destination",
                Level::Ok,
                format!("{shown}: reachable, its stream / queue / topic exists"),
            ),
            Ok((destination::Sink::Publisher(p), _)) => match p.probe().await {
                Ok(Some(seen)) => check(
                    checks,
                    "destination",
                    Level::Ok,
                    format!("{shown}: reachable, {seen}"),
                ),
                Ok(None) => check(
                    checks,
                    "destination",
                    Level::Ok,
                    format!("{shown}: valid (not contacted)"),
                ),
                Err(e) => check(checks, "destination", Level::Fail, format!("{shown}: {e}")),
            },
            Ok(_) => check(
                checks,
                "destination",
                Level::Ok,
                format!("{shown}: valid (not contacted)"),
            ),
        }
    }
}

/// `shutdown_drain_timeout ≥ 5 × pass_statement_timeout`, so the drain's last pass commits.
fn drain_check(ctx: &Ctx, checks: &mut Vec<Check>) {
    let r = &ctx.config.relay;
    if r.shutdown_drain_timeout >= r.pass_statement_timeout * 5 {
        check(
            checks,
            "drain timeout",
            Level::Ok,
            format!(
                "shutdown_drain_timeout {} ≥ 5 × pass_statement_timeout {}",
                Dur(r.shutdown_drain_timeout),
                Dur(r.pass_statement_timeout)
            ),
        );
    } else {
        check(
            checks,
            "drain timeout",
            Level::Fail,
            "shutdown_drain_timeout is under 5 × pass_statement_timeout: the drain's last pass may be cut and rolled back",
        );
    }
}

/// Prints the checks; exit 1 on any fail.
fn report(ctx: &Ctx, checks: &[Check]) -> u8 {
    let failed = checks.iter().any(|c| c.level == Level::Fail);
    if ctx.out.is_json() {
        ctx.out
            .json(&serde_json::json!({ "ok": !failed, "checks": checks }));
    } else {
        for c in checks {
            let tag = match c.level {
                Level::Ok => "ok  ",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            if !(ctx.out.quiet && c.level == Level::Ok) {
                ctx.out
                    .data(&format!("{tag}  {:<17} {}", c.check, c.detail));
            }
        }
    }
    if failed {
        exit_code::CHECK_FAILED
    } else {
        exit_code::OK
    }
}
