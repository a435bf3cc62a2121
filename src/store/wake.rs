//! The wake-up listener a backend hands out for `relay.wake: notify`: PostgreSQL's
//! `LISTEN` on each outbox table's wake trigger, or a MongoDB change stream on the
//! collection; or why this run polls only (said through the caller's `warn`: no trigger, a
//! pooler in the way, a deployment without change streams). The outbox in memory has none. No
//! terminal code.

use super::backend::{Backend, Mongo, Postgres};
use crate::Error;
use crate::wake::{NoListener, Wakers};

/// A listener running, until aborted.
pub type Listener = tokio::task::JoinHandle<()>;

impl Backend<'_> {
    /// Starts the listener that wakes lanes when rows are staged (`on_wake` hears the route
    /// first), or says through `warn` why the relay polls only (every `relay.interval`, which
    /// stays the safety net either way).
    pub async fn wake_listener(
        &self,
        wakers: Wakers,
        on_wake: impl Fn(&str) + Send + 'static,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Option<Listener>, Error> {
        match self {
            Backend::Postgres(pg) => pg.wake_listener(wakers, on_wake, warn).await,
            Backend::Mongo(mongo) => mongo.wake_listener(wakers, on_wake, warn).await,
            // nothing commits in memory behind the relay's back: polling only
            Backend::Memory(_) => Ok(None),
        }
    }
}

impl Postgres<'_> {
    async fn wake_listener(
        &self,
        wakers: Wakers,
        on_wake: impl Fn(&str) + Send + 'static,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Option<Listener>, Error> {
        let config = self.config;
        let polling = crate::duration::Dur(config.relay.interval);
        let main = config.require_url()?;
        let mut channels = Vec::new();
        let mut missing = Vec::new();
        let mut conn = self.connect().await?;
        for tenant in config.relation_tenants()? {
            let table = self.relation.resolve(tenant)?;
            let trigger = table.name.with_suffix("wake trigger", "_wake")?;
            if !super::postgres::wake::has_trigger(&mut conn, &table, trigger.name()).await? {
                missing.push(table.plain());
            }
            channels.push(trigger.name().to_owned());
        }
        if !missing.is_empty() {
            warn(&format!(
                "relay.wake: notify: {} has no wake trigger, so staging wakes nobody: run outboxctl migrate; polling every {polling} meanwhile",
                missing.join(", ")
            ));
        }
        if config.relay.wake_url.is_none()
            && crate::db::pg::direct_backend_pid(&mut conn, main)
                .await
                .is_none()
        {
            return Ok(polls(
                warn,
                polling,
                &NoListener("the database URL goes through a pooler (the server listens on another port than the one dialled) and LISTEN needs a session of its own; set relay.wake_url to a direct or session-pooled URL".into()),
            ));
        }
        let url = match &config.relay.wake_url {
            Some(Ok(url)) => url,
            // the listener needs it: an error for the relay alone
            Some(Err(unset)) => {
                return Err(crate::config::ConfigError::Invalid(unset.to_string()).into());
            }
            None => main,
        };
        use super::postgres::wake::{self as pg_wake, ListenFailed};
        let on = pg_wake::ListenOn {
            url: url.clone(),
            notify_url: main.clone(),
            channels,
            check_every: pg_wake::QUIET_CHECK,
        };
        match pg_wake::listen(url, main, &on.channels, self.connect_timeout).await {
            Ok(listener) => {
                tracing::info!(url = %url, channels = on.channels.len(), "wake-up on commit: listening");
                Ok(Some(tokio::spawn(pg_wake::run(
                    listener, on, wakers, on_wake,
                ))))
            }
            // a server away for a moment at start must not leave the run polling for good
            Err(ListenFailed::Unreachable(why)) => {
                warn(&format!(
                    "relay.wake: notify: {why}; polling every {polling} while the listener tries again"
                ));
                let timeout = self.connect_timeout;
                Ok(Some(tokio::spawn(pg_wake::listen_when_reachable(
                    on, timeout, wakers, on_wake,
                ))))
            }
            Err(ListenFailed::Unusable(why)) => Ok(polls(warn, polling, &why)),
        }
    }
}

impl Mongo<'_> {
    async fn wake_listener(
        &self,
        wakers: Wakers,
        on_wake: impl Fn(&str) + Send + 'static,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Option<Listener>, Error> {
        let polling = crate::duration::Dur(self.config.relay.interval);
        let collection = self.collection;
        let client = self.connect().await?;
        match super::mongo::wake::listen(&client, collection).await {
            Ok(coll) => {
                tracing::info!(collection = %collection, "wake-up on insert: following a change stream");
                Ok(Some(tokio::spawn(super::mongo::wake::run(
                    coll, wakers, on_wake,
                ))))
            }
            Err(why) => Ok(polls(warn, polling, &why)),
        }
    }
}

/// Says why this run polls only: no listener.
fn polls(
    warn: &mut dyn FnMut(&str),
    polling: crate::duration::Dur,
    why: &NoListener,
) -> Option<Listener> {
    warn(&format!(
        "relay.wake: notify is off for this run, polling every {polling}: {why}"
    ));
    None
}
