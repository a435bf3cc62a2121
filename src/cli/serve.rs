//! The looping relay's HTTP endpoint: `/metrics` (Prometheus text format), `/healthz`
//! (liveness: 503 when a route has failed its passes for too long or the database fails a
//! statement; a database that is away or a destination that is down does not make the relay
//! unhealthy, it says so) and `/readyz` (readiness: 503 while the database is away or a
//! destination is down, with the reasons).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

use super::Ctx;
use crate::Error;
use crate::relay::metrics::Metrics;
use crate::store::PassTarget;
use crate::store::any::Conn;
use crate::store::ops::{OpsStore, RouteSummary};

/// Blocked keys are counted up to this many per route at each scrape.
const BLOCKED_CAP: u32 = 1000;

pub struct Endpoint {
    pub metrics: Arc<Metrics>,
    pub targets: Vec<PassTarget>,
    pub health_max_failing: Duration,
}

/// Binds now (so a taken port fails the start), then serves in the background.
pub async fn spawn(ctx: &Ctx, addr: SocketAddr, endpoint: Endpoint) -> Result<SocketAddr, Error> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Runtime(format!("--metrics-addr {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::Runtime(e.to_string()))?;
    let owned = Arc::new(ctx.clone());
    let endpoint = Arc::new(endpoint);
    let conn: Arc<Mutex<Option<Conn>>> = Arc::default();
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                continue;
            };
            let (ctx, endpoint, conn) = (owned.clone(), endpoint.clone(), conn.clone());
            tokio::spawn(async move {
                let _ = handle(sock, &ctx, &endpoint, &conn).await;
            });
        }
    });
    Ok(bound)
}

/// Reads the gauges, reconnecting when the connection was lost.
async fn gauges(
    ctx: &Ctx,
    endpoint: &Endpoint,
    slot: &Mutex<Option<Conn>>,
) -> Result<Vec<RouteSummary>, Error> {
    let mut guard = slot.lock().await;
    if guard.is_none() {
        *guard = Some(ctx.connect().await?);
    }
    let conn = guard.as_mut().expect("connected");
    let result = async {
        let mut out = Vec::new();
        for t in crate::store::any::targets(&ctx.config, None)? {
            let mut ops = crate::store::any::open(&ctx.config, conn, &t).await?;
            for target in endpoint
                .targets
                .iter()
                .filter(|p| p.tenant == t.tenant || !ctx.config.outbox.tenant_aware)
            {
                let now = chrono::Utc::now();
                let mut summary = ops.summary(&target.route, target.tenant, now).await?;
                if ctx.config.relay.key_order == crate::model::KeyOrder::Strict {
                    let blocked = ops
                        .blocked(Some(&target.route), target.tenant, now, BLOCKED_CAP)
                        .await?;
                    summary.blocked_keys = Some(blocked.len() as i64);
                }
                out.push(summary);
            }
        }
        Ok(out)
    }
    .await;
    if result.is_err() {
        *guard = None;
    }
    result
}

async fn handle(
    mut sock: TcpStream,
    ctx: &Ctx,
    endpoint: &Endpoint,
    slot: &Mutex<Option<Conn>>,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 8192];
    let mut len = 0;
    while !buf[..len].windows(4).any(|w| w == b"\r\n\r\n") && len < buf.len() {
        let n = sock.read(&mut buf[len..]).await?;
        if n == 0 {
            break;
        }
        len += n;
    }
    let request = String::from_utf8_lossy(&buf[..len]);
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let (status, body) = match path {
        "/metrics" => {
            let gauges = tokio::time::timeout(Duration::from_secs(5), gauges(ctx, endpoint, slot))
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            (200, endpoint.metrics.render(&gauges, chrono::Utc::now()))
        }
        "/healthz" => {
            let db =
                tokio::time::timeout(Duration::from_secs(3), gauges(ctx, endpoint, slot)).await;
            let failing = endpoint
                .metrics
                .failing_longer_than(endpoint.health_max_failing);
            // A database that is away is no reason to restart the relay (it would not bring
            // the database back): alive, and saying so.
            let away = |why: String| {
                (
                    200,
                    format!(
                        "ok: the database is away ({why}); every route waits and resumes when it answers\n"
                    ),
                )
            };
            match db {
                _ if endpoint.metrics.database_away().is_some() => {
                    away(endpoint.metrics.database_away().unwrap_or_default())
                }
                Err(_) => away("no answer within 3s".into()),
                Ok(Err(e @ Error::Connect { .. })) => away(e.to_string()),
                Ok(Err(e)) => (503, format!("unhealthy: {e}\n")),
                Ok(Ok(_)) if !failing.is_empty() => (
                    503,
                    format!(
                        "unhealthy: passes failing for over {}: {}\n",
                        crate::duration::Dur(endpoint.health_max_failing),
                        failing.join(", ")
                    ),
                ),
                Ok(Ok(_)) => (200, "ok\n".to_owned()),
            }
        }
        "/readyz" => {
            let mut lines: Vec<String> = endpoint
                .metrics
                .database_away()
                .map(|why| format!("the database is away: {why}"))
                .into_iter()
                .collect();
            lines.extend(
                endpoint
                    .metrics
                    .down_destinations()
                    .iter()
                    .map(|(d, why)| format!("destination {d} is down: {why}")),
            );
            if lines.is_empty() {
                (200, "ready\n".to_owned())
            } else {
                (503, format!("not ready: {}\n", lines.join("; ")))
            }
        }
        _ => (
            404,
            "not found: try /metrics, /healthz or /readyz\n".to_owned(),
        ),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Service Unavailable",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; version=0.0.4; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}
