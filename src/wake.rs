//! Waking a looping relay before its `interval` is over: a listener (PostgreSQL `LISTEN`, a
//! MongoDB change stream) says which routes got rows; each lane runs a tick for those routes
//! at once. Wakes coalesce: however many arrive while a tick runs, one more tick follows.

use std::collections::HashSet;
use std::sync::Mutex;

use tokio::sync::Notify;

/// Why a wake-up listener cannot start here (the relay then polls): what was tried, and why
/// not, in one line. The backends' listeners say it; the backend switch passes it on.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NoListener(pub String);

/// One lane's wake-up: which routes were named since its last tick.
#[derive(Debug, Default)]
pub struct WakeSignal {
    notify: Notify,
    woken: Mutex<Woken>,
}

#[derive(Debug, Default)]
struct Woken {
    all: bool,
    routes: HashSet<String>,
}

impl WakeSignal {
    /// Rows arrived for `route` (`None`: maybe for any route, e.g. after a reconnect).
    pub fn wake(&self, route: Option<&str>) {
        {
            let mut w = self.woken.lock().expect("not poisoned");
            match route {
                Some(r) => {
                    w.routes.insert(r.to_owned());
                }
                None => w.all = true,
            }
        }
        // stores one permit when nobody waits: many wakes, one tick
        self.notify.notify_one();
    }

    /// Waits for the next wake.
    pub async fn notified(&self) {
        self.notify.notified().await;
    }

    /// The routes named since the last call (`None`: every route).
    pub fn take(&self) -> Option<HashSet<String>> {
        let mut w = self.woken.lock().expect("not poisoned");
        let all = std::mem::take(&mut w.all);
        let routes = std::mem::take(&mut w.routes);
        (!all).then_some(routes)
    }
}

/// Every lane's wake-up with the routes it serves: what a listener wakes.
#[derive(Clone, Default)]
pub struct Wakers(pub Vec<(Vec<String>, std::sync::Arc<WakeSignal>)>);

impl Wakers {
    /// Rows arrived for `route`: its lanes run a tick for it. Whether any lane serves it (a
    /// table's other routes may be other relays').
    pub fn route(&self, route: &str) -> bool {
        let mut served = false;
        for (routes, signal) in &self.0 {
            if routes.iter().any(|r| r == route) {
                signal.wake(Some(route));
                served = true;
            }
        }
        served
    }

    /// Anything may have arrived (a listener reconnected): every lane runs every route.
    pub fn all(&self) {
        for (_, signal) in &self.0 {
            signal.wake(None);
        }
    }
}

/// The longest a listener waits between reconnection attempts: its reconnect is the database's
/// answer that resumes every route (the twin of the relay's database probe cap).
pub const RECONNECT_CAP: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a listener waits before its `failures`-th reconnection attempt: 200 ms doubling
/// to [`RECONNECT_CAP`] (polling carries on meanwhile).
pub fn reconnect_wait(failures: u32) -> std::time::Duration {
    let doublings = failures.saturating_sub(1).min(16);
    (std::time::Duration::from_millis(200) * 2u32.pow(doublings)).min(RECONNECT_CAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn wakes_coalesce_and_name_their_routes() {
        let s = WakeSignal::default();
        s.wake(Some("orders"));
        s.wake(Some("orders"));
        s.wake(Some("billing"));
        s.notified().await;
        let routes = s.take().unwrap();
        assert_eq!(routes.len(), 2);
        // one permit for the three wakes: the next wait blocks
        let again = tokio::time::timeout(std::time::Duration::from_millis(20), s.notified()).await;
        assert!(again.is_err(), "wakes coalesce into one");
        s.wake(None);
        s.notified().await;
        assert_eq!(s.take(), None, "a wake for any route runs them all");
    }

    /// A route no lane serves wakes nothing, and says so (its wake is not counted).
    #[test]
    fn a_route_wakes_the_lanes_that_serve_it() {
        let (a, b) = (
            std::sync::Arc::new(WakeSignal::default()),
            std::sync::Arc::new(WakeSignal::default()),
        );
        let wakers = Wakers(vec![
            (vec!["orders".into()], a.clone()),
            (vec!["billing".into()], b.clone()),
        ]);
        assert!(wakers.route("orders"));
        assert!(!wakers.route("someone_elses"));
        assert_eq!(a.take().map(|r| r.len()), Some(1));
        assert_eq!(b.take().map(|r| r.len()), Some(0));
    }

    #[test]
    fn reconnects_back_off_from_200_ms_to_a_second() {
        let waits: Vec<u128> = (1..=5).map(|n| reconnect_wait(n).as_millis()).collect();
        assert_eq!(waits, [200, 400, 800, 1000, 1000]);
    }
}
