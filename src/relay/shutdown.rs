//! Stopping a looping relay: a stop starts its shutdown drain, whose budget runs from the
//! first stop whatever runs then.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// Stops a looping relay: `stop()` starts the shutdown drain, which ends
/// `shutdown_drain_timeout` after the stop whatever runs then.
#[derive(Clone)]
pub struct Shutdown {
    tx: Arc<watch::Sender<Option<Instant>>>,
    rx: watch::Receiver<Option<Instant>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        let (tx, rx) = watch::channel(None);
        Self {
            tx: Arc::new(tx),
            rx,
        }
    }
}

impl Shutdown {
    pub fn stop(&self) {
        self.tx.send_if_modified(|at| {
            let first = at.is_none();
            if first {
                *at = Some(Instant::now());
            }
            first
        });
    }

    pub fn is_stopped(&self) -> bool {
        self.rx.borrow().is_some()
    }

    /// When `stop()` was first called.
    pub fn stopped_at(&self) -> Option<Instant> {
        *self.rx.borrow()
    }

    /// Sleeps `d`, returning early (true) when stopped.
    pub async fn sleep(&self, d: Duration) -> bool {
        let mut rx = self.rx.clone();
        tokio::select! {
            _ = tokio::time::sleep(d) => self.is_stopped(),
            _ = rx.wait_for(Option::is_some) => true,
        }
    }

    /// Resolves once stopped (never, while not).
    pub async fn stopped(&self) {
        self.drain_over(Duration::ZERO).await;
    }

    /// Resolves `budget` after the stop (never, while not stopped): the drain's end.
    pub async fn drain_over(&self, budget: Duration) {
        let mut rx = self.rx.clone();
        let at = match rx.wait_for(Option::is_some).await {
            Ok(at) => (*at).expect("stopped"),
            Err(_) => return std::future::pending().await,
        };
        tokio::time::sleep_until((at + budget).into()).await;
    }
}
