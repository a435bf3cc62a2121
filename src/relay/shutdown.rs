//! Stopping a looping relay: a stop starts its shutdown drain, whose budget runs from the
//! first stop whatever runs then.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// Stops a looping relay: `stop()` starts the shutdown drain, which ends
/// `shutdown_drain_timeout` after the stop whatever runs then.
#[derive(Clone, Debug)]
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
    /// Stops on SIGTERM or SIGINT (the drain); a second one exits the process at once with
    /// [`crate::exit_code::INTERRUPTED`]. The handlers are registered before this returns.
    pub fn on_signals(&self) {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return;
        };
        let shutdown = self.clone();
        tokio::spawn(async move {
            for n in 0.. {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
                if n > 0 {
                    crate::telemetry::stderr_line(format_args!(
                        "interrupted: a second signal ends the relay at once; a pass in flight is rolled back, and under retain its claimed rows stay processing until reclaim_stale_after"
                    ));
                    std::process::exit(i32::from(crate::exit_code::INTERRUPTED));
                }
                tracing::info!("stop requested: draining (signal again to exit at once)");
                shutdown.stop();
            }
        });
    }

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

    /// `work`'s outcome, or `None` when the stop comes first (`work` is then dropped).
    pub async fn unless_stopped<F: std::future::Future>(&self, work: F) -> Option<F::Output> {
        tokio::select! {
            done = work => Some(done),
            () = self.stopped() => None,
        }
    }

    /// [`Shutdown::unless_stopped`] for the relay's start: a stop first is logged (nothing
    /// was claimed, nothing to drain).
    pub async fn unless_stopped_starting<F: std::future::Future>(
        &self,
        work: F,
    ) -> Option<F::Output> {
        let done = self.unless_stopped(work).await;
        if done.is_none() {
            tracing::info!("stop requested while starting: nothing was claimed, the relay stops");
        }
        done
    }

    /// Resolves `budget` after the stop (never, while not stopped): the drain's end.
    pub async fn drain_over(&self, budget: Duration) {
        let mut rx = self.rx.clone();
        // the watch's guard is gone before anything else awaits (the future stays `Send`)
        let at = rx.wait_for(Option::is_some).await.ok().and_then(|at| *at);
        let Some(at) = at else {
            return std::future::pending().await;
        };
        tokio::time::sleep_until((at + budget).into()).await;
    }
}

/// The stop as a pass in flight sees it. A pass that is running when the stop comes starts no
/// publish, and cuts one in flight, four fifths into the drain's budget, so that its marks and
/// its commit fit in the last fifth. Without it such a pass ran on until the drain's end
/// abandoned it, and retain's claimed rows stayed `processing` until `reclaim_stale_after`.
#[derive(Clone)]
pub struct StopWatch {
    shutdown: Shutdown,
    publishing: Duration,
    budget: Duration,
}

impl StopWatch {
    /// The watch of `shutdown`, whose drain lasts `drain_budget`.
    pub fn new(shutdown: &Shutdown, drain_budget: Duration) -> Self {
        Self {
            shutdown: shutdown.clone(),
            publishing: drain_budget.mul_f64(0.8),
            budget: drain_budget,
        }
    }

    /// Resolves when the drain's budget is spent (never, while not stopped).
    pub async fn drain_over(&self) {
        self.shutdown.drain_over(self.budget).await;
    }

    /// When publishing ends: `None` until the stop.
    pub fn publishing_ends(&self) -> Option<Instant> {
        self.shutdown.stopped_at().map(|at| at + self.publishing)
    }

    /// Resolves when publishing ends (never, while not stopped).
    pub async fn publishing_over(&self) {
        self.shutdown.drain_over(self.publishing).await;
    }

    /// Whether the stop has come.
    pub fn is_stopped(&self) -> bool {
        self.shutdown.is_stopped()
    }
}
