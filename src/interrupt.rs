//! Ctrl-C for a command that stops cleanly on it. While a [`Taken`] guard lives, the command
//! hears Ctrl-C itself (a replay finishes the message in flight and says where to resume), and
//! a second Ctrl-C ends it at once; otherwise [`unhandled`] ends the command at once, exit 130.

use std::sync::atomic::{AtomicUsize, Ordering};

static TAKEN: AtomicUsize = AtomicUsize::new(0);

/// Ctrl-C is the holder's to handle while this lives.
pub struct Taken(());

/// Takes Ctrl-C over until the guard drops.
pub fn take() -> Taken {
    TAKEN.fetch_add(1, Ordering::SeqCst);
    Taken(())
}

impl Drop for Taken {
    fn drop(&mut self) {
        TAKEN.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Completes on a Ctrl-C that no [`Taken`] guard handles, or on the second one a guard's
/// holder heard (it may be stuck); never when the handler cannot be installed.
pub async fn unhandled() {
    let mut heard_by_holder = 0;
    loop {
        if tokio::signal::ctrl_c().await.is_err() {
            return std::future::pending().await;
        }
        if TAKEN.load(Ordering::SeqCst) == 0 || heard_by_holder > 0 {
            return;
        }
        heard_by_holder += 1;
    }
}

/// Completes on the next Ctrl-C or SIGTERM (a `timeout`, an orchestrator stopping the job),
/// listening from this call on (not from the first poll); never for a signal whose handler
/// cannot be installed.
pub fn next() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let heard = |kind| {
        let listening = signal(kind);
        async move {
            match listening {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        }
    };
    let (sigint, sigterm) = (
        heard(SignalKind::interrupt()),
        heard(SignalKind::terminate()),
    );
    async move {
        tokio::select! {
            () = sigint => {}
            () = sigterm => {}
        }
    }
}
