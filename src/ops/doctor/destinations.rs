//! `doctor`'s destination checks: each route's broker or file, checked as the relay checks it
//! at start, changing nothing.

use super::{DoctorReport, Level};
use crate::config::Config;

/// Each configured route's destination, connected to and checked as the relay does at start
/// (NATS stream and its duplicate window, RabbitMQ queue, Kafka topic), without changing
/// anything: `create_stream`, `create_topic` and `declare` are checked, not carried out.
pub(super) async fn checks(config: &Config, report: &mut DoctorReport) {
    use crate::destination::{self, BuildContext};
    let build_ctx = BuildContext::from_config(config);
    for (route, dest) in &config.relay.routes {
        let shown = format!("{route} → {}", dest.to);
        let (level, detail) = check(route, dest, &shown, false, build_ctx).await;
        report.add("destination", level, detail);
        // its dead letters' destination too, as the relay connects it at start (it passed
        // unchecked, and the relay then refused to start)
        let (level, detail) = match destination::dead_letter_route(route, dest) {
            Ok(None) => continue,
            Ok(Some(letters)) => {
                let shown = format!("{route} dead letters → {}", letters.to);
                check(route, &letters, &shown, true, build_ctx).await
            }
            Err(e) => (Level::Fail, e.to_string()),
        };
        report.add("destination", level, detail);
    }
}

/// One destination (`shown` names it; `letters`: the route's dead letters'), checked as the
/// relay checks it at start: its level and what to say.
async fn check(
    route: &str,
    dest: &crate::config::Route,
    shown: &str,
    letters: bool,
    build_ctx: crate::destination::BuildContext,
) -> (Level, String) {
    use crate::destination::{self, DestinationError, DestinationUrl};
    // an error of the dead letters' destination is named by their key
    let said = |e: DestinationError| match letters {
        true => destination::dead_letter_key(e, route).to_string(),
        false => e.to_string(),
    };
    let stdout = std::sync::Arc::new(std::sync::Mutex::new(()));
    let contacted = match dest.to.url() {
        Some(DestinationUrl::Nats(_) | DestinationUrl::Amqp(_) | DestinationUrl::Kafka(_)) => true,
        // a file would be created by opening it: its options as the relay plans them,
        // and its folder (the options went unchecked: doctor passed what the relay refused)
        Some(DestinationUrl::File(path)) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            return match (destination::plan(route, dest), dir) {
                (Err(e), _) => (Level::Fail, said(e)),
                (Ok(_), Some(d)) if !d.is_dir() => (
                    Level::Fail,
                    format!("{shown}: folder {} does not exist", d.display()),
                ),
                _ => (Level::Ok, format!("{shown}: valid")),
            };
        }
        _ => false,
    };
    let creates = dest.create_stream == Some(true)
        || dest.create_topic == Some(true)
        || dest.declare == Some(true);
    let read_only = crate::config::Route {
        create_stream: None,
        create_topic: None,
        partitions: None,
        declare: None,
        ..dest.clone()
    };
    let built = (destination::build(route, &read_only, &stdout, build_ctx).await).map(|(s, w)| {
        let w = w.iter().map(|w| match letters {
            true => destination::dead_letter_warning(w),
            false => w.clone(),
        });
        (s, w.collect::<Vec<_>>())
    });
    match built {
        Err(e)
            if creates
                && ["create_stream", "create_topic", "declare: true"]
                    .iter()
                    .any(|k| e.to_string().contains(k)) =>
        {
            (
                Level::Ok,
                format!("{shown}: reachable; the relay will create what is missing"),
            )
        }
        Err(e) => (Level::Fail, said(e)),
        Ok((_, warnings)) if warnings.iter().any(|w| w.contains("unreachable")) => (
            Level::Fail,
            format!("{shown}: {}", unnamed(route, &warnings)),
        ),
        Ok((_, warnings)) if !warnings.is_empty() => (
            Level::Warn,
            format!("{shown}: {}", unnamed(route, &warnings)),
        ),
        Ok(_) if contacted => (
            Level::Ok,
            format!("{shown}: reachable, its stream / queue / topic exists"),
        ),
        Ok((destination::Sink::Publisher(p), _)) => match p.probe().await {
            Ok(Some(seen)) => (Level::Ok, format!("{shown}: reachable, {seen}")),
            Ok(None) => (Level::Ok, format!("{shown}: valid (not contacted)")),
            Err(e) => (Level::Fail, format!("{shown}: {e}")),
        },
        Ok(_) => (Level::Ok, format!("{shown}: valid (not contacted)")),
    }
}

/// The warnings of a route's destination without the `route NAME: ` each starts with: the
/// check's line names the route already (it said `orders → redis://…: route orders: …`).
fn unnamed(route: &str, warnings: &[String]) -> String {
    let prefix = format!("route {route}: ");
    let bare: Vec<&str> = (warnings.iter())
        .map(|w| w.strip_prefix(&prefix).unwrap_or(w))
        .collect();
    bare.join("; ")
}
