//! `relay.wake: notify` on PostgreSQL: a dedicated connection `LISTEN`s on each outbox
//! table's channel (`<table>_wake`, which the insert trigger notifies with the route) and
//! always reads, so the server's notification queue never fills; each notification wakes the
//! lanes serving its route. `LISTEN` needs a session: behind a transaction pooler it succeeds
//! and hears nothing, so a `NOTIFY` round trip from another connection is checked first.

use std::time::Duration;

use sqlx::postgres::{PgConnection, PgListener, PgPoolOptions};

use crate::Error;
use crate::dburl::DatabaseUrl;
use crate::target::QualifiedName;
use crate::wake::{Wakers, reconnect_wait};

/// Payloads that start with this are outboxctl's own checks, not routes.
const PROBE: &str = "\u{1}outboxctl-probe ";

/// Why a listener did not start: its server could not be reached (it may come back: worth
/// asking again), or it answered and cannot serve (a pooler that delivers nothing, a LISTEN
/// refused).
#[derive(Debug)]
pub enum ListenFailed {
    Unreachable(crate::wake::NoListener),
    Unusable(crate::wake::NoListener),
}

impl std::fmt::Display for ListenFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (ListenFailed::Unreachable(why) | ListenFailed::Unusable(why)) = self;
        write!(f, "{why}")
    }
}

/// Connects to `url`, listens on `channels`, and checks that a notification sent through
/// `notify_url` (another connection, as a writer's would be) arrives. `Err` says why not.
pub async fn listen(
    url: &DatabaseUrl,
    notify_url: &DatabaseUrl,
    channels: &[String],
    timeout: Duration,
) -> Result<PgListener, ListenFailed> {
    try_listen(url, notify_url, channels, timeout)
        .await
        .map_err(|(reached, why)| match reached {
            false => ListenFailed::Unreachable(crate::wake::NoListener(why)),
            true => ListenFailed::Unusable(crate::wake::NoListener(why)),
        })
}

/// Asks again, 1 s doubling to a minute, for a listener whose server could not be reached
/// when the relay started (it polls meanwhile), then runs it; gives up, saying why, on a
/// server that answers and cannot serve. Rows staged before it listens are found by a wake of
/// every route.
pub async fn listen_when_reachable(
    on: ListenOn,
    timeout: Duration,
    wakers: Wakers,
    on_wake: impl Fn(&str),
) {
    let mut wait = Duration::from_secs(1);
    loop {
        tokio::time::sleep(wait).await;
        match listen(&on.url, &on.notify_url, &on.channels, timeout).await {
            Ok(listener) => {
                let url = &on.url;
                tracing::info!(url = %url, channels = on.channels.len(), "wake-up on commit: listening");
                wakers.all();
                return run(listener, on, wakers, on_wake).await;
            }
            Err(ListenFailed::Unreachable(why)) => {
                tracing::debug!("the wake-up listener's server is still away: {why}");
                wait = (wait * 2).min(Duration::from_secs(60));
            }
            Err(ListenFailed::Unusable(why)) => {
                tracing::warn!("relay.wake: notify is off for this run, polling only: {why}");
                return;
            }
        }
    }
}

/// A listener on `url`, or why not, with whether its server was reached.
async fn try_listen(
    url: &DatabaseUrl,
    notify_url: &DatabaseUrl,
    channels: &[String],
    timeout: Duration,
) -> Result<PgListener, (bool, String)> {
    let options = crate::db::pg_options(url).map_err(|e| (true, e.to_string()))?;
    // a pool that cannot connect only says it timed out: one direct connection first says why
    crate::db::connect_pg(url, timeout)
        .await
        .map_err(|e| match e {
            crate::db::DbError::Connect { reason, .. } => (false, reason),
            other => (true, other.to_string()),
        })?;
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(timeout)
        // sqlx's own warning about a slow acquire says nothing the relay does not say better
        .acquire_slow_level(tracing::log::LevelFilter::Off)
        .connect_with(options)
        .await
        .map_err(|e| {
            (
                false,
                format!("cannot connect to {url}: {}", crate::db::pg_message(&e)),
            )
        })?;
    let mut listener = PgListener::connect_with(&pool).await.map_err(|e| {
        (
            true,
            format!("cannot listen on {url}: {}", crate::db::pg_message(&e)),
        )
    })?;
    let names: Vec<&str> = channels.iter().map(String::as_str).collect();
    listener.listen_all(names).await.map_err(|e| {
        (
            true,
            format!("LISTEN failed: {}", crate::db::pg_message(&e)),
        )
    })?;
    // a notification from another session must arrive
    let token = format!("{PROBE}{}", uuid::Uuid::new_v4());
    let mut conn = crate::db::connect_pg(notify_url, timeout)
        .await
        .map_err(|e| (false, e.to_string()))?;
    let not_heard = |detail: &str| {
        format!(
            "a NOTIFY sent to {notify_url} did not reach the LISTEN on {url}{detail}: a transaction pooler such as pgbouncer in transaction mode accepts LISTEN and delivers nothing; set relay.wake_url to a direct or session-pooled URL"
        )
    };
    if let Err(e) = crate::db::pg::query("SELECT pg_notify($1, $2)")
        .bind(&channels[0])
        .bind(&token)
        .execute(&mut conn)
        .await
    {
        let _ = listener.unlisten_all().await;
        // a transaction pooler hands the notification to the session that sent it, which the
        // driver takes for a protocol error (its text names the driver's source line)
        let detail = match e {
            sqlx::Error::Protocol(_) => {
                " (the notification came back on the connection that sent it)".to_owned()
            }
            e => format!(" (it failed: {})", crate::db::pg_message(&e)),
        };
        return Err((true, not_heard(&detail)));
    }
    let heard = tokio::time::timeout(timeout.min(Duration::from_secs(3)), async {
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) if n.payload() == token => return true,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);
    if heard {
        Ok(listener)
    } else {
        // a pooled server connection must not keep listening for its next client
        let _ = listener.unlisten_all().await;
        Err((true, not_heard("")))
    }
}

/// Whether `table` has its wake trigger `trigger` (which `migrate` creates), the one that
/// notifies the table's channel on insert.
pub async fn has_trigger(
    conn: &mut PgConnection,
    table: &QualifiedName,
    trigger: &str,
) -> Result<bool, Error> {
    let found: i64 = crate::db::pg::query_scalar(
        "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2",
    )
    .bind(table.to_string())
    .bind(trigger)
    .fetch_one(conn)
    .await
    .map_err(|e| Error::pg("looking for the wake trigger", e))?;
    Ok(found > 0)
}

/// Whether the listener's server answers `SELECT 1` (a simple query: no arguments) within
/// `within`. The statement's future is made outside the `async` block: sqlx's executor for a
/// listener is generic over its lifetime, and the task would not be `Send` for every one.
fn answers(
    listener: &mut PgListener,
    within: Duration,
) -> futures_util::future::BoxFuture<'_, Result<(), String>> {
    let asked = sqlx::Executor::execute(listener, "SELECT 1");
    Box::pin(async move {
        match tokio::time::timeout(within, asked).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(crate::db::pg_message(&e)),
            Err(_) => Err(format!(
                "the server did not answer a check within {}",
                crate::duration::Dur(within)
            )),
        }
    })
}

/// Where a listener listens, so that it can listen again after a lost connection.
pub struct ListenOn {
    pub url: DatabaseUrl,
    /// Where the `NOTIFY` round trip that checks a new listener is sent from.
    pub notify_url: DatabaseUrl,
    pub channels: Vec<String>,
    /// After this long without a notification the listener asks the server (`SELECT 1`, within
    /// a third of it): a connection gone half-open (a NAT that forgot the flow, a host gone
    /// without a reset) never ends a read, and only reads, so it would hang unseen. The relay's
    /// is [`QUIET_CHECK`].
    pub check_every: Duration,
}

/// How long the relay's listener stays quiet before it asks the server whether it is there.
pub const QUIET_CHECK: Duration = Duration::from_secs(30);

/// Reads notifications until the task is dropped: each wakes the lanes serving its route
/// (`on_wake` counts it). A lost connection wakes every lane at once (a lane that polls once an
/// hour must find out that its database is away) and is reconnected here, not by the driver,
/// so that the relay knows when it is listening again: every 200 ms doubling to 1 s, each try a
/// new connection, `LISTEN` and a `NOTIFY` round trip. Listening again wakes every lane
/// (notifications sent meanwhile were lost, and a lane waiting for the database takes it as the
/// database's answer).
pub async fn run(mut listener: PgListener, on: ListenOn, wakers: Wakers, on_wake: impl Fn(&str)) {
    listener.eager_reconnect(false);
    loop {
        // a read cut by the quiet check waits on an idle connection, between messages
        let heard = tokio::time::timeout(on.check_every, listener.try_recv()).await;
        let lost = match heard {
            Ok(Ok(Some(n))) => {
                let route = n.payload();
                // counted for the routes this relay serves only (one metrics series each)
                if !route.starts_with(PROBE) && wakers.route(route) {
                    on_wake(route);
                }
                continue;
            }
            Ok(Ok(None)) => "the connection was lost".to_owned(),
            Ok(Err(e)) => crate::db::pg_message(&e),
            Err(_) => match answers(&mut listener, on.check_every / 3).await {
                Ok(()) => continue,
                Err(why) => why,
            },
        };
        tracing::warn!(
            "the wake-up connection is gone ({lost}): every route runs now; listening again as soon as the database answers"
        );
        wakers.all();
        let mut failures: u32 = 0;
        listener = loop {
            failures += 1;
            tokio::time::sleep(reconnect_wait(failures)).await;
            match listen(
                &on.url,
                &on.notify_url,
                &on.channels,
                Duration::from_secs(2),
            )
            .await
            {
                Ok(mut l) => {
                    l.eager_reconnect(false);
                    break l;
                }
                Err(why) if failures == 1 => tracing::warn!(
                    "the wake-up connection cannot reconnect: {why}; polling carries on, retrying every {} at most",
                    crate::duration::Dur(crate::wake::RECONNECT_CAP)
                ),
                Err(why) => tracing::debug!("the wake-up connection still cannot reconnect: {why}"),
            }
        };
        tracing::info!("the wake-up connection listens again: every route runs now");
        wakers.all();
    }
}
