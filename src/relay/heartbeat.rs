//! The relay's heartbeat into the registry (`outbox.registry`): registered before the first
//! pass (so pauses in force are known from the start), then every `relay.heartbeat` on a task
//! of its own, with its own connection, reading the pauses back into the [`FleetView`] the
//! lanes consult. A failed heartbeat is logged and counted, never a pass's failure; a database
//! without the registry's table runs the relay as before, and says once how to add it. On
//! stop: a last heartbeat, then the row is marked stopped.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use uuid::Uuid;

use super::fleet::FleetView;
use crate::config::Config;
use crate::fleet::{Heartbeat, Pause};
use crate::store::backend::Backend;
use crate::store::registry::{self, Registry};

/// How long a stopping relay waits for the registry to take its last heartbeat.
pub const HEARTBEAT_STOP_WITHIN: Duration = Duration::from_secs(2);

/// Who this relay is, as its row says.
#[derive(Debug, Clone)]
pub struct Identity {
    pub id: String,
    pub host: String,
    pub pid: u32,
    pub routes: Vec<String>,
    pub tenants: Vec<Uuid>,
}

impl Identity {
    /// Whether pause `p` holds any of this relay's routes (a pause of another route is no news
    /// to it: a relay serving five routes logged the pauses of routes it never claims).
    fn serves(&self, p: &Pause) -> bool {
        let tenant = |t: Uuid| self.tenants.is_empty() || self.tenants.contains(&t);
        self.routes.contains(&p.route) && p.tenant.is_none_or(tenant)
    }

    /// This process serving `routes` for `tenants`.
    pub fn here(routes: Vec<String>, tenants: Vec<Uuid>) -> Self {
        let host = registry::host_name();
        let pid = std::process::id();
        let tag: u32 = rand::random();
        Self {
            id: format!("{host}-{pid}-{:06x}", tag & 0xff_ffff),
            host,
            pid,
            routes,
            tenants,
        }
    }
}

/// A relay registered: its registry, ready for [`Registered::spawn`].
pub struct Registered {
    registry: Registry,
    /// The first heartbeat read the pauses table: the claim may read it too.
    table_seen: bool,
    identity: Identity,
    interval: Duration,
    fleet: Arc<FleetView>,
}

fn describe(p: &Pause) -> String {
    let tenant = p
        .tenant
        .map(|t| format!(" for tenant {t}"))
        .unwrap_or_default();
    // the pause as every other command says it (its time was written with a `T` here alone)
    format!("route {}{tenant} paused {p}", p.route)
}

impl Registered {
    /// Registers the relay (its first heartbeat), or says through `warn` why it runs without
    /// a registry: `None` then. `Some` even when that heartbeat failed for another reason
    /// (the next one may succeed). The pauses read go into `fleet`; [`Self::claim_pauses`]
    /// names the table the claim may read them from too (the caller passes it to its stores).
    pub async fn register(
        backend: &Backend<'_>,
        config: &Config,
        identity: Identity,
        fleet: Arc<FleetView>,
        warn: &mut dyn FnMut(&str),
    ) -> Option<Self> {
        let registry = match backend.registry().await {
            Ok(r) => r,
            Err(crate::Error::Config(e)) => {
                if !config.registry_off() {
                    warn(&format!("this relay does not register: {e}"));
                }
                return None;
            }
            Err(e) => {
                warn(&format!(
                    "this relay does not register (its routes run all the same): {e}"
                ));
                return None;
            }
        };
        fleet.heartbeat_every(config.relay.heartbeat);
        let mut me = Self {
            registry,
            table_seen: false,
            identity,
            interval: config.relay.heartbeat,
            fleet,
        };
        let sent = Instant::now();
        match me.beat(sent).await {
            Ok((paused, _)) => {
                me.table_seen = true;
                for p in paused.iter().filter(|p| me.identity.serves(p)) {
                    warn(&format!("{}: it claims nothing until resumed", describe(p)));
                }
                Some(me)
            }
            Err(e) if Registry::is_missing(&e) => {
                warn(&format!(
                    "the relay registry {} does not exist, so this relay does not register and reads no route pauses: run `outboxctl migrate` to add it",
                    me.registry.name()
                ));
                None
            }
            Err(e) => {
                me.fleet.heartbeat_failed(sent);
                warn(&format!(
                    "the first heartbeat failed (the relay runs all the same and tries again every {}): {e}",
                    crate::duration::Dur(me.interval)
                ));
                Some(me)
            }
        }
    }

    /// The pauses table a claim may read (PostgreSQL): only when the first heartbeat read it,
    /// so a claim never names a table that is missing.
    pub fn claim_pauses(&self) -> Option<crate::target::QualifiedName> {
        self.registry.pauses_table().filter(|_| self.table_seen)
    }

    /// One heartbeat, sent at `sent`: the row written, the pauses read into the view (as of
    /// `sent`); the pauses that began and ended since the last one.
    async fn beat(&mut self, sent: Instant) -> Result<(Vec<Pause>, Vec<Pause>), crate::Error> {
        let report = self.fleet.report();
        let hb = Heartbeat {
            id: self.identity.id.clone(),
            host: self.identity.host.clone(),
            pid: self.identity.pid,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            routes: self.identity.routes.clone(),
            tenants: self.identity.tenants.clone(),
            last_pass: report.last_pass,
            last_error: report.last_error,
            published: report.published,
            lag_p99_ms: report.lag_p99_ms,
            metrics_addr: report.metrics_addr,
            interval: self.interval,
        };
        // a database (or pooler) that stalls answers no beat: counted as a failed one, as a
        // database away is (every heartbeat signal stayed green while it lasted)
        let within = (self.interval * 2).max(std::time::Duration::from_secs(2));
        let Ok(answer) = tokio::time::timeout(within, self.registry.beat(&hb)).await else {
            self.registry.forget_connection();
            return Err(crate::Error::Db(crate::db::DbError::Connect {
                target: self.registry.name(),
                reason: format!(
                    "no answer within {}: the server, or a pooler in front of it, stalls",
                    crate::duration::Dur(within)
                ),
            }));
        };
        Ok(self.fleet.apply(answer?.pauses, sent))
    }

    /// Heartbeats every interval until [`HeartbeatTask::stop`].
    pub fn spawn(mut self) -> HeartbeatTask {
        let (tx, mut rx) = watch::channel(false);
        let fleet = self.fleet.clone();
        let handle = tokio::spawn(async move {
            // failures in a row: the first is a warning, the rest (the database away, a beat
            // each) debug lines, until one goes through again
            let mut failing = 0u64;
            loop {
                tokio::select! {
                    () = tokio::time::sleep(self.interval) => {}
                    _ = rx.changed() => break,
                }
                let sent = Instant::now();
                match self.beat(sent).await {
                    Ok((paused, resumed)) => {
                        if std::mem::take(&mut failing) > 0 {
                            tracing::info!("heartbeat into the relay registry goes through again");
                        }
                        let mine = |p: &&Pause| self.identity.serves(p);
                        for p in paused.iter().filter(mine) {
                            tracing::warn!("{}: it claims nothing until resumed", describe(p));
                        }
                        for p in resumed.iter().filter(mine) {
                            tracing::info!(route = %p.route, "route resumed: it claims again");
                        }
                    }
                    Err(e) => {
                        self.fleet.heartbeat_failed(sent);
                        failing += 1;
                        if failing == 1 {
                            tracing::warn!(
                                "heartbeat into the relay registry failed (passes go on; said again when it goes through): {e}"
                            );
                        } else {
                            tracing::debug!("heartbeat into the relay registry failed again: {e}");
                        }
                    }
                }
            }
            // the last word: final figures, then stopped
            let last = self.beat(Instant::now()).await.map(drop);
            if let Err(e) = last.and(self.registry.stop(&self.identity.id).await) {
                tracing::warn!("could not mark this relay stopped in the registry: {e}");
            }
        });
        HeartbeatTask {
            stop: tx,
            handle,
            fleet,
        }
    }
}

/// The heartbeat running.
pub struct HeartbeatTask {
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
    fleet: Arc<FleetView>,
}

impl HeartbeatTask {
    /// [`Self::stop`] of a relay that did not start: stopped first (`None`), or it could not
    /// (a destination refused, the metrics address was taken), which its row then says (it
    /// said stopped with no error, so a crash-looping relay's rows told nothing).
    pub async fn stop_as<T>(self, start: Option<&Result<T, crate::Error>>, within: Duration) {
        if let Some(Err(e)) = start {
            self.fleet.failed_to_start(crate::error::printable(e));
        }
        self.stop(within).await;
    }

    /// A last heartbeat and the row marked stopped (bounded by `within`).
    pub async fn stop(self, within: Duration) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(within, self.handle).await.is_err() {
            tracing::warn!(
                "the relay registry did not answer in {}: this relay's row will show stale, then be pruned",
                crate::duration::Dur(within)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_hears_of_the_pauses_of_its_own_routes_and_tenants_only() {
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let pause = |route: &str, tenant: Option<Uuid>| Pause {
            route: route.into(),
            tenant,
            reason: "r".into(),
            by: "u@h".into(),
            since: chrono::Utc::now(),
        };
        let all_tenants = Identity::here(vec!["orders".into()], vec![]);
        assert!(all_tenants.serves(&pause("orders", None)));
        assert!(all_tenants.serves(&pause("orders", Some(b))));
        assert!(!all_tenants.serves(&pause("audit", None)), "another route");
        let tenant_a = Identity::here(vec!["orders".into()], vec![a]);
        assert!(tenant_a.serves(&pause("orders", Some(a))));
        assert!(
            !tenant_a.serves(&pause("orders", Some(b))),
            "another tenant"
        );
    }
}
