//! `doctor`'s look at the fleet, from the relay registry: relays that stopped heartbeating
//! (killed, hung or cut off from the database) and routes paused, each named. Nothing when the
//! configuration has no registry; a warning when the database lacks its table.

use chrono::Utc;

use super::{DoctorReport, Level};
use crate::config::Config;
use crate::fleet::RelayState;
use crate::store::backend::Backend;
use crate::store::registry::Registry;

/// The check's names.
pub const RELAYS: &str = "relays";
pub const PAUSED: &str = "paused routes";

/// The registry's relays and pauses as checks.
pub async fn checks(
    config: &Config,
    connect_timeout: std::time::Duration,
    report: &mut DoctorReport,
) {
    let Ok(mut registry) = Backend::of(config, connect_timeout).registry().await else {
        return; // no registry configured
    };
    let relays = match registry.relays().await {
        Ok(r) => r,
        Err(e) if Registry::is_missing(&e) => {
            report.add(
                RELAYS,
                Level::Warn,
                format!(
                    "the relay registry {} does not exist: relays do not register and route pauses cannot be set; run `outboxctl migrate`",
                    registry.name()
                ),
            );
            return;
        }
        Err(e) => {
            report.add(
                RELAYS,
                Level::Warn,
                format!("cannot read the relay registry: {e}"),
            );
            return;
        }
    };
    let now = Utc::now();
    let count = |s: RelayState| relays.iter().filter(|r| r.state == s).count();
    let stale: Vec<String> = relays
        .iter()
        .filter(|r| r.state == RelayState::Stale)
        .map(|r| {
            format!(
                "{} (pid {} on {}, last seen {} ago)",
                r.id,
                r.pid,
                r.host,
                crate::duration::age(now - r.last_seen)
            )
        })
        .collect();
    let summary = format!(
        "{} live, {} stale, {} stopped",
        count(RelayState::Live),
        count(RelayState::Stale),
        count(RelayState::Stopped)
    );
    if stale.is_empty() {
        report.add(RELAYS, Level::Ok, summary);
    } else {
        report.add(
            RELAYS,
            Level::Warn,
            format!(
                "{summary}; stale (killed, hung or cut off): {}",
                stale.join("; ")
            ),
        );
    }
    match registry.pauses(false).await {
        Ok(pauses) if pauses.is_empty() => report.add(PAUSED, Level::Ok, "none"),
        Ok(pauses) => {
            let named: Vec<String> = pauses
                .iter()
                .map(|p| {
                    let p = &p.pause;
                    format!(
                        "{}{} by {} for {}: {}",
                        p.route,
                        p.tenant
                            .map(|t| format!(" (tenant {t})"))
                            .unwrap_or_default(),
                        p.by,
                        crate::duration::age(now - p.since),
                        p.reason
                    )
                })
                .collect();
            report.add(PAUSED, Level::Warn, named.join("; "));
        }
        Err(e) => report.add(
            PAUSED,
            Level::Warn,
            format!("cannot read the route pauses: {e}"),
        ),
    }
}
