//! What `outboxctl migrate` does on the configured backend: read the live catalog, plan what
//! is missing (pure, [`crate::schema::plan`]), and apply the plan one step at a time; on
//! PostgreSQL under the migration lock (an advisory lock on a connection of its own), with a
//! short `lock_timeout` and retries for each change to an existing table. Only ever adds,
//! unless asked to prune the functions of the pass that the configuration's relay does not call.

use std::time::{Duration, Instant};

use serde::Serialize;
use sqlx::PgConnection;

use crate::Error;
use crate::config::{Config, Target};
use crate::dburl::{Backend as Kind, DatabaseUrl};
use crate::schema::desired::Extras;
use crate::schema::plan::{self, MigrationPlan, Problem, Step, StepKind};
use crate::schema::postgres::{self as pg, LockPolicy, MigrationLock};
use crate::schema::render::Statement;
use crate::schema::{MongoSchema, PgSchema, mongo};
use crate::store::backend::Backend;
use crate::store::postgres::diagnostics::{OtherFunction, other_pass_functions, others_named};
use crate::store::postgres::sql::{FunctionKind, PassFunction, functions, no_room_for_functions};

/// Where the plan is applied.
enum SchemaIo {
    /// The connection that applies it, and how to open another that watches a concurrent
    /// index build (its URL and connect timeout).
    Postgres(PgConnection, Box<(DatabaseUrl, Duration)>),
    Mongo(mongodb::Client, MongoSchema),
}

/// How often a concurrent index build is read while it runs, from the first reading on.
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// `migrate --format json`: what the run found, or did.
#[derive(Debug, Serialize)]
pub struct MigrationReport<'a> {
    /// `up_to_date`, `pending` (steps found, not applied), `applied`, or `problems` (what
    /// migrate does not change is left, listed in `problems`; exit 1).
    pub status: &'static str,
    pub backend: Kind,
    pub target: &'a str,
    pub steps: &'a [Step],
    /// Whether `steps` were applied (`false` under `--dry-run` and `--check`).
    pub applied: bool,
    pub problems: &'a [plan::Problem],
    /// What migrate left out on purpose, and what that costs (empty: not printed).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub warnings: &'a [String],
}

/// A migration planned against the live database, ready to apply.
pub struct Migration {
    /// The outbox it is for, as the configuration names it (a relation template or `db.coll`).
    pub target: String,
    pub backend: Kind,
    pub plan: MigrationPlan,
    /// What it leaves out on purpose (a function the relay would not trust), and what that
    /// costs: printed, not a failure.
    pub warnings: Vec<String>,
    /// The functions the plan drops (`--prune-functions`), named for the confirmation.
    pub pruning: Vec<String>,
    io: SchemaIo,
    lock: Option<MigrationLock>,
}

impl Migration {
    /// Each change's lock policy: `lock_timeout` as given, else half the relays'
    /// `pass_statement_timeout` (a relay's statement queued behind a change then waits well
    /// under its own timeout), and `retries`.
    pub fn lock_policy(
        config: &Config,
        lock_timeout: Option<Duration>,
        retries: u32,
    ) -> LockPolicy {
        let half = (config.relay.pass_statement_timeout / 2).max(Duration::from_millis(10));
        LockPolicy {
            lock_timeout: lock_timeout.unwrap_or(half),
            retries,
        }
    }

    /// Connects and plans. With `lock_wait` (to apply), first takes the migration lock,
    /// waiting that long for another migrate of the same outbox (then exit 4). With
    /// `prune_functions` the plan also drops the functions of the pass that the configuration's
    /// relay does not call (outboxctl's for the table, of another version or other settings).
    pub async fn plan(
        config: &Config,
        connect_timeout: Duration,
        lock_wait: Option<Duration>,
        prune_functions: bool,
        policy: LockPolicy,
    ) -> Result<Self, Error> {
        let target = match &config.outbox.target {
            Target::Postgres { relation, .. } => relation.template(),
            Target::Mongo { collection, .. } => collection.to_string(),
        };
        match Backend::of(config, connect_timeout) {
            Backend::Postgres(p) => {
                let schemas = PgSchema::from_config(config, Extras::default())?;
                let mut conn = p.connect().await?;
                let lock = match lock_wait {
                    Some(wait) => {
                        let keys = lock_keys(&target, &schemas);
                        Some(MigrationLock::acquire(p.connect().await?, &keys, wait).await?)
                    }
                    None => None,
                };
                let mut plan = MigrationPlan::default();
                for schema in &schemas {
                    let catalog = pg::introspect_within(&mut conn, schema, policy).await?;
                    let mut one = plan::plan_postgres(schema, &catalog);
                    plan::attach_days_to_new_log(
                        &mut one,
                        schema,
                        &catalog,
                        chrono::Utc::now().date_naive(),
                        config.partitions.ahead_days,
                    );
                    plan.extend(one);
                }
                let opts = p.store_options();
                let no_room = no_room_for_functions(&opts).filter(|_| !plan.not_an_outbox);
                let mut warnings: Vec<String> = no_room.into_iter().collect();
                // nothing is created beside a table that is not an outbox, and no function
                // of the pass on a table whose columns differ from the specification's: its
                // body reads them as the specification types them
                let (functions, held) = functions(&opts)
                    .into_iter()
                    .filter(|_| !plan.not_an_outbox)
                    .partition::<Vec<_>, _>(|f| !plan.has_column_problem(&f.table.plain()));
                if let Some(f) = held.first() {
                    warnings.push(format!(
                        "the functions of the pass wait until the columns of {} are as the specification has them (the problems below): fix them by hand, then run outboxctl migrate again (until then the relay sends its statements' SQL)",
                        f.table.plain()
                    ));
                }
                for f in functions {
                    match function_step(&opts, f, &mut conn).await? {
                        FunctionStep::Step(step) => plan.steps.push(*step),
                        FunctionStep::Problem(problem) => plan.problems.push(problem),
                        FunctionStep::LeftOut(why) => warnings.push(why),
                        FunctionStep::UpToDate => {}
                    }
                }
                let others = other_pass_functions(&mut conn, &opts)
                    .await
                    .map_err(|e| Error::pg("reading the catalog", e))?;
                let pruning = if prune_functions {
                    let names = others.iter().map(|f| f.name.plain()).collect();
                    plan.steps.extend(others.into_iter().map(drop_step));
                    names
                } else {
                    warnings.extend(others_named(&others).map(|named| {
                        format!(
                            "{named}; once no relay calls them, `outboxctl migrate --prune-functions` drops them"
                        )
                    }));
                    Vec::new()
                };
                if plan.not_an_outbox {
                    plan.steps.clear();
                }
                Ok(Self {
                    target,
                    backend: Kind::Postgres,
                    plan,
                    warnings,
                    pruning,
                    io: SchemaIo::Postgres(
                        conn,
                        Box::new((config.require_url()?.clone(), connect_timeout)),
                    ),
                    lock,
                })
            }
            Backend::Mongo(m) => {
                let schema = MongoSchema::from_config(config, Extras::default())?;
                let client = m.connect().await?;
                let catalog = mongo::introspect(&client, &schema).await.map_err(|e| {
                    Error::mongo(format!("reading indexes of {}", schema.outbox), e)
                })?;
                // the flag is PostgreSQL's: said, not silently ignored
                let warning = prune_functions.then(|| {
                    "MongoDB has no functions of the pass: --prune-functions drops nothing".into()
                });
                Ok(Self {
                    target,
                    backend: Kind::Mongo,
                    plan: plan::plan_mongo(&schema, &catalog),
                    warnings: warning.into_iter().collect(),
                    pruning: Vec::new(),
                    io: SchemaIo::Mongo(client, schema),
                    lock: None,
                })
            }
            Backend::Memory(_) => Err(Error::NotConfigured(
                "the memory store has no schema to migrate",
            )),
        }
    }

    /// What `--prune-functions` asks before it drops anything; `None` when it drops nothing.
    pub fn prune_question(&self) -> Option<String> {
        (!self.pruning.is_empty()).then(|| {
            let names = self.pruning.join(", ");
            format!("drop {names} (relays still calling one send its SQL instead, slower)")
        })
    }

    /// The report of a run that `applied` its plan, or only read it.
    pub fn report(&self, applied: bool) -> MigrationReport<'_> {
        // nothing to apply with problems left is no "up_to_date" (a deploy hook took a column
        // of the wrong type for a schema in order)
        // nor is a run that applied steps and left problems "applied": a script that trusts
        // the status reads what the exit code (1) says
        let status = match (
            applied,
            self.plan.steps.is_empty(),
            self.plan.problems.is_empty(),
        ) {
            (_, true, true) => "up_to_date",
            (_, _, false) => "problems",
            (false, false, true) => "pending",
            (true, false, true) => "applied",
        };
        MigrationReport {
            status,
            backend: self.backend,
            target: &self.target,
            steps: &self.plan.steps,
            applied: applied && !self.plan.steps.is_empty(),
            problems: &self.plan.problems,
            warnings: &self.warnings,
        }
    }

    /// A failed check when the plan holds problems migrate cannot fix, or (`check`: nothing
    /// was applied) steps are missing; each is printed already, the error sums them up.
    pub fn verdict(&self, check: bool) -> Result<(), Error> {
        let (missing, problems) = (self.plan.steps.len(), self.plan.problems.len());
        let mut found = Vec::new();
        if check && missing > 0 {
            found.push(format!("{missing} step(s) missing"));
        }
        if problems > 0 {
            found.push(format!("{problems} problem(s) migrate cannot fix"));
        }
        if found.is_empty() {
            return Ok(());
        }
        Err(Error::CheckFailed(format!(
            "schema of {}: {}",
            self.target,
            found.join(", ")
        )))
    }

    /// The comment marker of the plan's script (`--` for SQL, `//` for mongosh).
    pub fn comment(&self) -> &'static str {
        match self.backend {
            Kind::Postgres => "--",
            Kind::Mongo => "//",
        }
    }

    /// Applies every step in order (`applied` hears each, with how long it took; `building`
    /// where a concurrent index build stands while it runs, every `WATCH_EVERY`), then
    /// releases the migration lock.
    pub async fn apply(
        &mut self,
        policy: LockPolicy,
        mut applied: impl FnMut(&Step, Duration),
        mut building: impl FnMut(&Step, &pg::BuildProgress),
    ) -> Result<(), Error> {
        for step in &self.plan.steps {
            let started = Instant::now();
            match &mut self.io {
                SchemaIo::Postgres(conn, watch) if step.kind == StepKind::Concurrent => {
                    let builder = crate::db::pg::direct_backend_pid(conn, &watch.0).await;
                    let run = pg::apply_step(conn, step, policy);
                    let on = step.builds_on.as_deref();
                    watched(run, watch, (builder, on), |p| building(step, p)).await?
                }
                SchemaIo::Postgres(conn, _) => pg::apply_step(conn, step, policy).await?,
                SchemaIo::Mongo(client, schema) => mongo::apply_step(client, schema, step).await?,
            }
            applied(step, started.elapsed());
        }
        if let Some(lock) = self.lock.take() {
            lock.release().await?;
        }
        Ok(())
    }
}

/// How long a concurrent build waits for one session before [`BuildWaits`] names it.
pub const NAME_AFTER: Duration = Duration::from_secs(2);

/// The sessions a concurrent build waits for, each named once when it has held the build up
/// for [`NAME_AFTER`] (a build waits out every older transaction: a session left idle in its
/// transaction stops `migrate` for as long as it stays, which a silent wait does not tell).
#[derive(Debug, Default)]
pub struct BuildWaits {
    /// The step whose build was read last: another starts naming anew.
    step: String,
    current: Option<(i32, Instant)>,
    named: Vec<i32>,
}

impl BuildWaits {
    /// What to show of `step`'s build as read at `now`: where it stands, in a line that
    /// replaces the last, and the session it waits for, once, to print.
    pub fn saw(
        &mut self,
        step: &str,
        p: &pg::BuildProgress,
        now: Instant,
    ) -> (String, Option<String>) {
        let done = p.percent.map(|n| format!(" {n}%")).unwrap_or_default();
        (
            format!("{step}: {}{done}", p.phase),
            self.named(step, p, now),
        )
    }

    fn named(&mut self, step: &str, p: &pg::BuildProgress, now: Instant) -> Option<String> {
        if self.step != step {
            *self = BuildWaits {
                step: step.to_owned(),
                ..BuildWaits::default()
            };
        }
        let Some((pid, who)) = &p.waits_for else {
            self.current = None;
            return None;
        };
        let since = match self.current {
            Some((held_by, since)) if held_by == *pid => since,
            _ => {
                self.current = Some((*pid, now));
                now
            }
        };
        let waited = now.duration_since(since);
        (waited >= NAME_AFTER && !self.named.contains(pid)).then(|| {
            self.named.push(*pid);
            format!(
                "{step}: {}, held up by {who} for {}; a concurrent build waits out every transaction older than it: end that one (pg_terminate_backend({pid}), if that is safe) or let it finish, and the build goes on",
                p.phase,
                crate::duration::Dur(Duration::from_secs(waited.as_secs())),
            )
        })
    }
}

/// Runs a concurrent index build (`run`), reading where it stands every [`WATCH_EVERY`] on a
/// connection of its own, opened at the first reading (a build that ends sooner costs none);
/// a reading that fails or takes longer than [`WATCH_EVERY`] ends the watching, never the
/// build: watching is only for the operator's eyes.
async fn watched(
    run: impl Future<Output = Result<(), Error>>,
    watch: &(DatabaseUrl, Duration),
    (builder, on): (Option<i32>, Option<&str>),
    mut seen: impl FnMut(&pg::BuildProgress),
) -> Result<(), Error> {
    let mut run = std::pin::pin!(run);
    let mut every =
        tokio::time::interval_at(tokio::time::Instant::now() + WATCH_EVERY, WATCH_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut watcher: Option<Option<PgConnection>> = None;
    loop {
        tokio::select! {
            done = &mut run => return done,
            _ = every.tick() => {
                if watcher.is_none() {
                    let (url, timeout) = watch;
                    let connect = crate::db::connect_pg(url, (*timeout).min(2 * WATCH_EVERY));
                    watcher = Some(connect.await.ok());
                }
                if let Some(conn) = watcher.as_mut().and_then(Option::as_mut) {
                    match tokio::time::timeout(WATCH_EVERY, pg::build_progress(conn, builder, on)).await {
                        Ok(Ok(Some(p))) => seen(&p),
                        Ok(Ok(None)) => {}
                        // a reading cut short leaves its connection mid-reply: watch no more
                        _ => watcher = Some(None),
                    }
                }
            }
        }
    }
}

/// A function of the pass (`store::postgres::sql::functions`: the claim's, and retain's mark's)
/// when the database has none the relay would call: the name carries a
/// hash of the whole text, so outboxctl's own of that name is the same; one that is not
/// outboxctl's as written (another body, owner or settings) is dropped and made again (the
/// drop fails, and says why, when migrate's role may not drop it). Built from the relay's store options (the
/// route pauses are read by the heartbeat, not the claim, unless `prepared_statements`); a
/// relay whose claim differs sends its SQL instead. When the function migrate's role would make
/// is not one the relay trusts (that role is neither a superuser nor a member of the table's
/// owner), making it would change nothing, every time: for strict order's claim that is a
/// problem (it costs most to plan), for the others a warning (and doctor's).
async fn function_step(
    opts: &crate::store::postgres::PgStoreOptions,
    f: PassFunction,
    conn: &mut PgConnection,
) -> Result<FunctionStep, Error> {
    use crate::store::postgres::diagnostics::{FunctionState, function_state, untrusted_maker};
    let catalog = |e| Error::pg("reading the catalog", e);
    let state = function_state(conn, &f).await.map_err(catalog)?;
    let (verb, mut statements) = match state {
        FunctionState::Trusted { .. } => return Ok(FunctionStep::UpToDate),
        FunctionState::Missing => ("create", Vec::new()),
        // dropped first: `CREATE OR REPLACE` would keep its owner
        FunctionState::Untrusted => (
            "replace a function not outboxctl's with",
            vec![Statement::new(format!(
                "DROP FUNCTION {}({})",
                f.name, f.arguments
            ))],
        ),
    };
    if let Some((role, owner)) = untrusted_maker(conn, &f).await.map_err(catalog)? {
        let what = f.kind.as_str();
        let why = format!(
            "the {what} is {}: migrate's role {role} is neither a superuser nor a member of {owner}, the owner of {}, so a relay would not call one it made; run `outboxctl migrate` as {owner} (until then the {} goes as SQL, slower)",
            if state == FunctionState::Missing {
                "missing"
            } else {
                "not outboxctl's as written"
            },
            f.table.plain(),
            f.kind.statement(),
        );
        let strict = opts.key_order == crate::model::KeyOrder::Strict;
        if !strict || f.kind != FunctionKind::Claim {
            // a statement quick to plan: a speed-up to forgo, not a reason to fail a migrate
            // that did everything else
            return Ok(FunctionStep::LeftOut(why));
        }
        return Ok(FunctionStep::Problem(Problem {
            object: f.name.plain(),
            message: why,
        }));
    }
    statements.push(Statement::new(f.ddl));
    Ok(FunctionStep::Step(Box::new(Step {
        summary: format!("{verb} the {} {}", f.kind.as_str(), f.name.plain()),
        kind: StepKind::Transaction,
        statements,
        mongo_index: None,
        mongo_collection: None,
        builds_on: None,
    })))
}

/// The step `--prune-functions` drops one of them with. A relay still calling it sends its
/// statement's SQL instead, at once: slower, not wrong.
fn drop_step(f: OtherFunction) -> Step {
    Step {
        summary: format!(
            "drop the {} {}, which this configuration's relay does not call",
            f.kind.as_str(),
            f.name.plain()
        ),
        kind: StepKind::Transaction,
        statements: vec![Statement::new(format!(
            "DROP FUNCTION {}({})",
            f.name, f.arguments
        ))],
        mongo_index: None,
        mongo_collection: None,
        builds_on: None,
    }
}

/// What [`function_step`] found for one function.
enum FunctionStep {
    UpToDate,
    Step(Box<Step>),
    Problem(Problem),
    /// Left out, and why (a warning).
    LeftOut(String),
}

/// What a migrate locks (all or none, [`MigrationLock::acquire`]): its outbox as the
/// configuration names it, and each object the outbox may share with others.
fn lock_keys(target: &str, schemas: &[PgSchema]) -> Vec<String> {
    let mut keys = vec![target.to_owned()];
    for s in schemas {
        // each tenant's table too: a migrate configured with it by name waits for this one
        keys.push(s.outbox.plain());
        let shared = [&s.checkpoint, &s.delivery_log, &s.registry];
        keys.extend(shared.into_iter().flatten().map(|n| n.plain()));
        keys.extend(s.sinks.iter().map(|n| n.plain()));
    }
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_holding_a_build_up_is_named_once_after_a_while() {
        let waiting = |pid| pg::BuildProgress {
            phase: "waiting for old snapshots".into(),
            waits_for: Some((pid, format!("pid {pid} (idle in transaction)"))),
            percent: None,
        };
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut waits = BuildWaits::default();
        assert_eq!(waits.named("build", &waiting(7), at(0)), None);
        assert_eq!(waits.named("build", &waiting(7), at(1_999)), None);
        let said = waits.named("build", &waiting(7), at(2_000)).expect("named");
        assert!(
            said.starts_with(
                "build: waiting for old snapshots, held up by pid 7 (idle in transaction) for 2s;"
            ),
            "{said}"
        );
        assert_eq!(waits.named("build", &waiting(7), at(9_000)), None, "once");
        // another session starts its own clock; a scan in between resets it
        assert_eq!(waits.named("build", &waiting(8), at(9_500)), None);
        let scanning = pg::BuildProgress {
            phase: "building index: scanning table".into(),
            waits_for: None,
            percent: Some(40),
        };
        assert_eq!(waits.named("build", &scanning, at(10_000)), None);
        assert_eq!(waits.named("build", &waiting(8), at(11_000)), None);
        assert!(waits.named("build", &waiting(8), at(13_000)).is_some());
        // the next step's build names the same session again, once it has held that one up
        assert_eq!(waits.named("next", &waiting(7), at(14_000)), None);
        assert!(waits.named("next", &waiting(7), at(16_000)).is_some());
    }
}
