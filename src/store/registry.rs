//! The relay registry and route pauses over whichever backend the configuration names
//! ([`Registry`]), from [`super::backend::Backend::registry`]. The relay's heartbeat and the
//! `route` and `inspect relays` commands use it; a lost PostgreSQL connection is opened again
//! on the next call.

use std::time::Duration;

use uuid::Uuid;

use super::mongo::registry::MongoRegistry;
use super::postgres::registry::PgRegistry;
use crate::Error;
use crate::db::pgclient::PgClient;
use crate::dburl::DatabaseUrl;
use crate::fleet::{BeatAnswer, Heartbeat, Pause, PauseRecord, RelayRecord};
use crate::target::QualifiedName;

/// MongoDB prunes on every this many heartbeats (a statement of its own there).
const MONGO_PRUNE_EVERY: u64 = 12;

/// The registry on its backend.
pub enum Registry {
    Postgres {
        registry: PgRegistry,
        url: DatabaseUrl,
        timeout: Duration,
        /// For the commands (`route`, `inspect relays`).
        conn: Option<sqlx::PgConnection>,
        /// For the heartbeat: the relay's one-batch client (one round trip a beat).
        client: Option<Box<PgClient>>,
    },
    Mongo {
        registry: MongoRegistry,
        name: String,
        beats: u64,
    },
}

/// The same call on either backend; a PostgreSQL connection that failed is dropped, so the
/// next call connects again (the commands' sqlx connection, or with `heartbeat` the
/// heartbeat's client).
macro_rules! on_backend {
    ($self:ident, $pg:ident, $conn:ident => $pg_call:expr, $mongo:ident => $mongo_call:expr) => {
        on_backend!(@on $self, conn, command_conn, $pg, $conn => $pg_call, $mongo => $mongo_call)
    };
    // the heartbeat's calls: on its one-batch client instead of the commands' connection
    (heartbeat $self:ident, $pg:ident, $client:ident => $pg_call:expr, $mongo:ident => $mongo_call:expr) => {
        on_backend!(@on $self, client, heartbeat_client, $pg, $client => $pg_call, $mongo => $mongo_call)
    };
    (@on $self:ident, $slot:ident, $open:ident, $pg:ident, $c:ident => $pg_call:expr, $mongo:ident => $mongo_call:expr) => {
        match $self {
            Registry::Postgres {
                registry: $pg,
                url,
                timeout,
                $slot,
                ..
            } => {
                let $c = $open($slot, url, *timeout).await?;
                let out = $pg_call.await;
                if out.is_err() {
                    *$slot = None;
                }
                out
            }
            Registry::Mongo {
                registry: $mongo, ..
            } => $mongo_call.await,
        }
    };
}

impl Registry {
    /// The registry's table or collection, as people name it.
    pub fn name(&self) -> String {
        match self {
            Registry::Postgres { registry, .. } => registry.names.registry.plain(),
            Registry::Mongo { name, .. } => name.clone(),
        }
    }

    /// The pauses table the PostgreSQL claim reads (so a pause holds from the next pass).
    pub fn pauses_table(&self) -> Option<QualifiedName> {
        match self {
            Registry::Postgres { registry, .. } => Some(registry.names.pauses.clone()),
            Registry::Mongo { .. } => None,
        }
    }

    /// Whether `e` (from this registry) says its table is missing: `migrate` has not run.
    pub fn is_missing(e: &Error) -> bool {
        matches!(e, Error::SchemaMissing(_)) || super::postgres::registry::is_missing(e)
    }

    /// One heartbeat: the relay's row written, the pauses in force read.
    pub async fn beat(&mut self, hb: &Heartbeat) -> Result<BeatAnswer, Error> {
        if let Registry::Mongo { beats, .. } = self {
            *beats += 1;
        }
        let prune =
            matches!(self, Registry::Mongo { beats, .. } if *beats % MONGO_PRUNE_EVERY == 1);
        on_backend!(heartbeat self, pg, c => pg.beat(c, hb), m => m.beat(hb, prune))
    }

    /// Forgets the heartbeat's connection (a beat cut mid-reply): the next beat connects anew.
    pub fn forget_connection(&mut self) {
        if let Registry::Postgres { client, .. } = self {
            *client = None;
        }
    }

    /// Marks the relay stopped.
    pub async fn stop(&mut self, id: &str) -> Result<(), Error> {
        on_backend!(heartbeat self, pg, c => pg.stop(c, id), m => m.stop(id))
    }

    /// Every relay registered, its state judged by the server.
    pub async fn relays(&mut self) -> Result<Vec<RelayRecord>, Error> {
        on_backend!(self, pg, conn => pg.relays(conn), m => m.relays())
    }

    /// The pauses in force, or (`history`) every pause ever made.
    pub async fn pauses(&mut self, history: bool) -> Result<Vec<PauseRecord>, Error> {
        on_backend!(self, pg, conn => pg.pauses(conn, history), m => m.pauses(history))
    }

    /// Pauses a route; `Err(pause)` when it was paused already.
    pub async fn pause(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        reason: &str,
        by: &str,
    ) -> Result<Result<Pause, Pause>, Error> {
        on_backend!(self, pg, conn => pg.pause(conn, route, tenant, reason, by),
            m => m.pause(route, tenant, reason, by))
    }

    /// Resumes a route; `None` when it was not paused.
    pub async fn resume(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        by: &str,
    ) -> Result<Option<Pause>, Error> {
        on_backend!(self, pg, conn => pg.resume(conn, route, tenant, by),
            m => m.resume(route, tenant, by))
    }
}

/// The commands' connection, opened when there is none.
async fn command_conn<'c>(
    conn: &'c mut Option<sqlx::PgConnection>,
    url: &DatabaseUrl,
    timeout: Duration,
) -> Result<&'c mut sqlx::PgConnection, Error> {
    if conn.is_none() {
        *conn = Some(crate::db::connect_pg(url, timeout).await?);
    }
    Ok(conn.as_mut().expect("connected above"))
}

/// The heartbeat's client, connected (again) when there is none or it was closed.
async fn heartbeat_client<'c>(
    client: &'c mut Option<Box<PgClient>>,
    url: &DatabaseUrl,
    timeout: Duration,
) -> Result<&'c mut PgClient, Error> {
    if client.as_ref().is_none_or(|c| c.is_closed()) {
        *client = Some(Box::new(PgClient::connect(url, timeout, false).await?));
    }
    Ok(client.as_mut().expect("connected above"))
}

/// This machine's host name (`unknown` when it cannot be read).
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is passed along.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let name = if rc == 0 {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        String::new()
    };
    if name.is_empty() {
        "unknown".into()
    } else {
        name
    }
}

/// Who runs this command: `user@host` (the user from `USER` or `LOGNAME`, else the uid).
pub fn os_actor() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.is_empty())
        // SAFETY: getuid has no preconditions and cannot fail.
        .unwrap_or_else(|| format!("uid {}", unsafe { libc::getuid() }));
    format!("{user}@{}", host_name())
}
