//! The live view of `outboxctl top` as state and keys: which route is selected, where the keys
//! go (routes or failure groups), a filter being typed, a route's rows, a group waiting for y/n
//! before it is requeued, and the last message. The command reads the terminal, turns its keys
//! into [`Key`]s and draws a [`Browser`]; what each key does, and what it reads or requeues
//! through the [`Source`], is here, with no terminal; so is what the screen and a printed
//! snapshot say in words (the route table's cells, the groups' title, the relays panel).

use crate::Error;
use crate::ops::failure_groups::FailureGroup;
use crate::ops::top::{self as view, GROUP_SAMPLE, RouteRow, Snapshot, Source};
use crate::store::ops::{Glance, RowView};

/// The keys the view knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Esc,
    Backspace,
    Up,
    Down,
    Tab,
}

/// Where the arrow keys go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Routes,
    Groups,
}

/// The live view's state between refreshes.
pub struct Browser {
    pub snap: Snapshot,
    /// The selected route's index in `snap.routes`.
    pub selected: Option<usize>,
    /// The picked group's index among [`Browser::visible_groups`].
    pub group: usize,
    pub focus: Focus,
    pub filter: Option<String>,
    /// Text typed after `/`, not applied yet.
    pub typing: Option<String>,
    /// A route's rows (Enter).
    pub detail: Option<(String, Vec<RowView>)>,
    /// A group waiting for y/n before its rows on a route are requeued.
    pub confirm: Option<Requeue>,
    pub message: Option<String>,
}

/// A requeue `r` asks about: a group's failed rows on one route (and tenant), picked when
/// asked; `y` requeues those rows (still failed with the group's error), no others.
pub struct Requeue {
    pub group: String,
    pub on: Glance,
    pub picked: crate::ops::requeue::Picked,
}

impl Browser {
    /// The first snapshot, the first route selected.
    pub async fn open(source: &mut Source<'_>, filter: Option<String>) -> Result<Self, Error> {
        let (snap, away) = source.snapshot_or_away(filter.as_deref()).await?;
        let message = away.map(|e| format!("refresh failed: {}", crate::error::one_line(&e)));
        Ok(Browser {
            snap,
            selected: Some(0),
            group: 0,
            focus: Focus::Routes,
            filter,
            typing: None,
            detail: None,
            confirm: None,
            message,
        })
    }

    pub fn selected_route(&self) -> Option<&RouteRow> {
        self.selected.and_then(|i| self.snap.routes.get(i))
    }

    /// The first failure group shown in a panel of `rows` lines: the picked one stays in sight
    /// (the panel held the first few, and `j` went on picking groups nobody could see).
    pub fn group_scroll(&self, rows: u16) -> u16 {
        scroll_to(self.group, rows)
    }

    /// The failure groups with rows on the selected route (and tenant).
    pub fn visible_groups(&self) -> Vec<&FailureGroup> {
        let selected = self.selected_route().map(|r| &r.glance);
        let route = selected.map(|g| g.route.as_str());
        self.snap.groups_on(route, selected.and_then(|g| g.tenant))
    }

    /// A new snapshot, keeping the selection on the route (and tenant) and the failure group it
    /// was on, wherever they moved (a drained route gone, groups sorted anew); a failed
    /// refresh keeps the last one and says why, until one succeeds.
    pub async fn refresh(&mut self, source: &mut Source<'_>) {
        match source.snapshot(self.filter.as_deref()).await {
            Ok(s) => {
                let route = self
                    .selected_route()
                    .map(|r| (r.glance.route.clone(), r.glance.tenant));
                let group = (self.visible_groups().get(self.group)).map(|g| g.id.clone());
                self.snap = s;
                let n = self.snap.routes.len();
                let same = |r: &RouteRow| {
                    (route.as_ref())
                        .is_some_and(|(name, t)| *name == r.glance.route && *t == r.glance.tenant)
                };
                self.selected = match self.snap.routes.iter().position(same) {
                    Some(i) => Some(i),
                    None if self.selected.is_none_or(|i| i >= n) => (n > 0).then_some(0),
                    None => self.selected,
                };
                let groups = self.visible_groups();
                self.group = (groups.iter())
                    .position(|g| Some(&g.id) == group.as_ref())
                    .unwrap_or(self.group.min(groups.len().saturating_sub(1)));
                if self
                    .message
                    .as_deref()
                    .is_some_and(|m| m.starts_with("refresh failed"))
                {
                    self.message = None;
                }
            }
            Err(e) => {
                let why = crate::error::one_line(&e);
                self.message = Some(format!("refresh failed: {why}"));
                // the relays answer without the database: their panel stays live (a relay's
                // DATABASE AWAY among it), the routes are the last screen's
                self.snap.database_away = None;
                if e.is_away() {
                    self.snap.relays = source.read_relays().await;
                    self.snap.database_away = Some(why);
                    self.snap.at = chrono::Utc::now();
                }
            }
        }
    }

    /// One key; `true` quits. What a key could not read or change (the database away for a
    /// moment) is said at the bottom, and the view goes on.
    pub async fn on(&mut self, source: &mut Source<'_>, key: Key) -> Result<bool, Error> {
        self.act(source, key).await.or_else(|e| {
            self.message = Some(crate::error::one_line(&e));
            Ok(false)
        })
    }

    async fn act(&mut self, source: &mut Source<'_>, key: Key) -> Result<bool, Error> {
        if let Some(text) = &mut self.typing {
            match key {
                Key::Enter => {
                    self.filter = Some(std::mem::take(text)).filter(|t| !t.is_empty());
                    self.typing = None;
                    self.snap = source.snapshot(self.filter.as_deref()).await?;
                    self.selected = (!self.snap.routes.is_empty()).then_some(0);
                }
                Key::Esc => self.typing = None,
                Key::Backspace => {
                    text.pop();
                }
                Key::Char(c) => text.push(c),
                _ => {}
            }
            return Ok(false);
        }
        if let Some(Requeue { group, on, picked }) = self.confirm.take() {
            if key == Key::Char('y') {
                let n = source.requeue_group(&picked).await?;
                let route = &on.route;
                self.message = Some(format!("requeued {n} row(s) of group {group} on {route}"));
                // the requeue is done: a snapshot that fails now waits for the next refresh
                if let Ok(snap) = source.snapshot(self.filter.as_deref()).await {
                    self.snap = snap;
                }
            } else {
                self.message = Some("requeue cancelled; nothing changed".into());
            }
            return Ok(false);
        }
        if self.detail.is_some() {
            if matches!(key, Key::Esc | Key::Enter | Key::Backspace) {
                self.detail = None;
            }
            return Ok(key == Key::Char('q'));
        }
        let n = self.snap.routes.len();
        match (key, self.focus) {
            (Key::Char('q') | Key::Esc, _) => return Ok(true),
            (Key::Down | Key::Char('j'), Focus::Routes) if n > 0 => {
                self.selected = Some(self.selected.map_or(0, |i| (i + 1).min(n - 1)));
            }
            (Key::Down | Key::Char('j'), Focus::Groups) => {
                let last = self.visible_groups().len().saturating_sub(1);
                self.group = (self.group + 1).min(last);
            }
            (Key::Up | Key::Char('k'), Focus::Routes) => {
                self.selected = Some(self.selected.map_or(0, |i| i.saturating_sub(1)));
            }
            (Key::Up | Key::Char('k'), Focus::Groups) => self.group = self.group.saturating_sub(1),
            (Key::Tab, focus) => {
                self.focus = match focus {
                    Focus::Routes => Focus::Groups,
                    Focus::Groups => Focus::Routes,
                };
                self.group = 0;
            }
            (Key::Enter, _) => {
                if let Some(r) = self.selected_route().cloned() {
                    let rows = source.rows(&r).await?;
                    self.detail = Some((r.glance.route.clone(), rows));
                }
            }
            (Key::Char('/'), _) => self.typing = Some(String::new()),
            (Key::Char('r'), focus) => {
                let group = self.visible_groups().get(self.group).map(|g| g.id.clone());
                let on = self.selected_route().map(|r| r.glance.clone());
                match (focus, group, on) {
                    (Focus::Groups, Some(group), Some(on)) => {
                        let picked = source.group_rows(&group, &on).await?;
                        if picked.ids.is_empty() {
                            let route = &on.route;
                            self.message = Some(format!(
                                "group {group} has no failed rows on {route} now; nothing to requeue"
                            ));
                        } else {
                            self.confirm = Some(Requeue { group, on, picked });
                        }
                    }
                    _ => {
                        let how = "Tab to the failure groups, pick one with j/k, then r";
                        self.message = Some(how.into());
                    }
                }
            }
            _ => {}
        }
        Ok(false)
    }

    /// The bottom line: what is being typed or asked, the last message, else the keys.
    pub fn footer(&self) -> String {
        if let Some(t) = &self.typing {
            format!("filter routes: {t}▏ (Enter apply, Esc cancel)")
        } else if let Some(Requeue { group, on, picked }) = &self.confirm {
            let rows = picked.ids.len();
            let tenant = on.tenant.map(|t| format!(" ({t})")).unwrap_or_default();
            let route = &on.route;
            format!("requeue the {rows} failed row(s) of group {group} on {route}{tenant}? y/N")
        } else if let Some(m) = &self.message {
            format!("{m}   — q quit")
        } else {
            "q quit  ↑↓/j/k move  Enter rows  / filter  Tab groups  r requeue group".into()
        }
    }
}

/// The route table's columns (with a tenant column on a tenant-aware outbox), as the live view
/// and a printed snapshot show them.
pub fn route_header(tenant_col: bool) -> Vec<&'static str> {
    let tenant = Some("tenant").filter(|_| tenant_col);
    let counts = [
        "ripe",
        "scheduled",
        "processing",
        "stale",
        "failed",
        "oldest ripe",
    ];
    (["route"]
        .into_iter()
        .chain(tenant)
        .chain(counts)
        .chain(["delivered"]))
    .collect()
}

impl RouteRow {
    /// The route's cells under [`route_header`].
    pub fn cells(&self, tenant_col: bool) -> Vec<String> {
        let g = &self.glance;
        let mut cells = vec![match self.paused {
            Some(_) => format!("{} (paused)", g.route),
            None => g.route.clone(),
        }];
        if tenant_col {
            cells.push(g.tenant.map(|t| t.to_string()).unwrap_or_default());
        }
        let age = self.oldest_ripe_age_seconds;
        cells.extend([
            view::count(g.ripe),
            view::count(g.scheduled),
            view::count(g.processing),
            g.stale.map_or("—".into(), view::count),
            view::count(g.failed),
            age.map_or("—".into(), crate::duration::age_of_seconds),
            view::per_second(self.delivered_per_second),
        ]);
        cells
    }
}

impl Snapshot {
    /// Whether the route table needs a tenant column.
    pub fn tenant_column(&self) -> bool {
        self.routes.iter().any(|r| r.glance.tenant.is_some())
    }

    /// Each pause in force on a route shown, once, named by its route and (a tenant's
    /// pause) its tenant: the relays panel and a printed snapshot list them. A route's pause
    /// was listed once per tenant row, and a tenant's read as the whole route's.
    pub fn paused_routes(&self) -> Vec<(String, &crate::fleet::Pause)> {
        let mut seen = std::collections::HashSet::new();
        (self.routes.iter())
            .filter_map(|r| r.paused.as_ref())
            .filter(|p| seen.insert((&p.route, p.tenant)))
            .map(|p| match p.tenant {
                Some(t) => (format!("{} (tenant {t})", p.route), p),
                None => (p.route.clone(), p),
            })
            .collect()
    }

    /// A printed snapshot's line for each pause in force: `orders PAUSED by … since …: reason`.
    pub fn paused_lines(&self) -> Vec<String> {
        (self.paused_routes().into_iter())
            .map(|(route, p)| format!("{route} PAUSED {p}"))
            .collect()
    }

    /// The failure groups' title: whether they come from a sample of the failed rows.
    pub fn groups_title(&self) -> String {
        match self.groups_sampled {
            true => format!("failure groups (first {GROUP_SAMPLE} failed rows)"),
            false => "failure groups".into(),
        }
    }
}

/// The columns of a route's rows in the live view's detail.
pub const VIEW_ROW_HEADER: [&str; 5] = ["status", "id", "created at", "attempts", "last error"];

/// A row's cells under [`VIEW_ROW_HEADER`].
pub fn view_row(r: &RowView) -> Vec<String> {
    let created = r.created_at.format("%Y-%m-%d %H:%M:%S").to_string();
    let error = r.last_error.clone().unwrap_or_default();
    vec![
        r.status.clone(),
        r.id.to_string(),
        created,
        r.attempts.to_string(),
        error,
    ]
}

impl Browser {
    /// The relays panel of `rows` lines of `width`: each paused route first (a panel of a few
    /// lines does not scroll), then each relay given and registered, live ones first (or what
    /// to do when there is no relay to show); a last line says how many more there are, and
    /// where to see them (the stale relays after a `kill -9` were cut off without a word). One
    /// row each, cut at the width (wrapped over two, they pushed that last line out of sight).
    pub fn relay_lines(&self, rows: u16, width: u16) -> Vec<String> {
        let s = &self.snap;
        let given = s.relays.iter().map(|r| r.line());
        let registered = s.registered.iter().map(|r| r.summary(s.at));
        let paused = (s.paused_routes().into_iter())
            .map(|(route, p)| format!("route {route} PAUSED: {}", p.reason));
        let most = usize::from(width.max(2)) - 1;
        let all = paused.chain(given).chain(registered);
        let mut lines: Vec<String> = all.map(|l| crate::text::clip(&l, most)).collect();
        let rows = usize::from(rows.max(1));
        if lines.len() > rows {
            let more = lines.len() - (rows - 1);
            lines.truncate(rows - 1);
            lines.push(format!("+{more} more: outboxctl inspect relays"));
        }
        match lines.is_empty() {
            true => vec![
                "no relay registered (outbox.registry) nor given (--relay http://HOST:PORT)".into(),
            ],
            false => lines,
        }
    }
}

/// The first line shown of a list in `rows` lines so that line `picked` is in sight.
fn scroll_to(picked: usize, rows: u16) -> u16 {
    let picked = u16::try_from(picked).unwrap_or(u16::MAX);
    picked.saturating_add(1).saturating_sub(rows.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::{Pause, RelayRecord, RelayState};
    use chrono::Utc;

    fn relay(id: &str, state: RelayState, seen_secs_ago: i64) -> RelayRecord {
        let seen = Utc::now() - chrono::Duration::seconds(seen_secs_ago);
        RelayRecord {
            id: id.into(),
            host: "h".into(),
            pid: 1,
            version: "v".into(),
            routes: vec!["orders".into()],
            tenants: Vec::new(),
            state,
            started_at: seen,
            last_seen: seen,
            last_pass_at: None,
            last_error: None,
            published: 0,
            lag_p99_ms: None,
            metrics_addr: None,
        }
    }

    /// The panel is a few lines and does not scroll: the pause and the live relays come
    /// before the stopped relays a registry keeps for a day (they came last, out of sight).
    #[test]
    fn the_relays_panel_shows_pauses_and_live_relays_first() {
        let mut registered = vec![
            relay("old-stopped", RelayState::Stopped, 3000),
            relay("stale-one", RelayState::Stale, 60),
            relay("live-older", RelayState::Live, 5),
            relay("new-stopped", RelayState::Stopped, 100),
            relay("live-newer", RelayState::Live, 1),
        ];
        // the older one heartbeat last: the newest started still comes first (by the last
        // heartbeat, live relays changed places at every refresh)
        registered[2].last_seen = Utc::now();
        crate::fleet::live_first(&mut registered);
        let glance = Glance {
            route: "orders".into(),
            tenant: None,
            ripe: 1,
            scheduled: 0,
            processing: 0,
            stale: None,
            failed: 0,
            oldest_ripe: None,
        };
        let pause = Pause {
            route: "orders".into(),
            tenant: None,
            reason: "bad deploy".into(),
            by: "me".into(),
            since: Utc::now(),
        };
        let snap = Snapshot {
            outbox: "app.outbox".into(),
            storage: "retain".into(),
            at: Utc::now(),
            refresh_ms: 1.0,
            cap: 10,
            staged_per_second: None,
            delivered_per_second: None,
            routes: vec![RouteRow {
                glance,
                oldest_ripe_age_seconds: None,
                delivered_per_second: None,
                paused: Some(pause),
            }],
            groups: Vec::new(),
            groups_sampled: false,
            relays: Vec::new(),
            registered,
            database_away: None,
        };
        let screen = Browser {
            snap,
            selected: Some(0),
            group: 0,
            focus: Focus::Routes,
            filter: None,
            typing: None,
            detail: None,
            confirm: None,
            message: None,
        };
        let firsts: Vec<String> = (screen.relay_lines(u16::MAX, u16::MAX).iter())
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
            .collect();
        let order = [
            "route",
            "live-newer",
            "live-older",
            "stale-one",
            "new-stopped",
            "old-stopped",
        ];
        assert_eq!(
            firsts,
            order,
            "{:#?}",
            screen.relay_lines(u16::MAX, u16::MAX)
        );
        // a panel too short for them all says how many more, and where they are
        let short = screen.relay_lines(4, 40);
        assert_eq!(short.len(), 4, "{short:#?}");
        assert_eq!(short[3], "+3 more: outboxctl inspect relays", "{short:#?}");
        // one row each, cut at the width: wrapped, they pushed the last line out of sight
        assert!(short.iter().all(|l| l.chars().count() <= 40), "{short:#?}");
        assert!(short[1].ends_with('…'), "{short:#?}");
    }

    #[test]
    fn the_picked_group_stays_in_sight() {
        assert_eq!(super::scroll_to(0, 6), 0);
        assert_eq!(super::scroll_to(5, 6), 0);
        assert_eq!(super::scroll_to(6, 6), 1, "the seventh of six lines");
        assert_eq!(super::scroll_to(9, 6), 4);
        assert_eq!(super::scroll_to(3, 0), 3, "no room: the picked one first");
    }
}
