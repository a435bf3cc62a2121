//! `outboxctl top`: a live view of the configured outbox, refreshed every `--interval`: per
//! route (and tenant) the bounded counts of [`crate::store::ops::Glance`], the age of the
//! oldest ripe row, rates between refreshes (the table's statistics; each relay's metrics),
//! failure groups at a glance, and the relays given with `--relay`. On a terminal it is a
//! ratatui screen (keys below); in a pipe or with `--once` it prints one snapshot. What it
//! shows comes from [`crate::ops::top::Source`]; this file draws it and reads the keys.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};

use super::Ctx;
use crate::Error;
use crate::ops::browse::{Browser, Focus, Key};
use crate::ops::top::{self as view, GROUP_SAMPLE, RouteRow, Snapshot, Source};

#[derive(Debug, Args)]
pub struct TopArgs {
    /// Refresh every
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    pub interval: crate::duration::Dur,
    /// A relay's metrics endpoint (its --metrics-addr), repeatable: http://HOST:PORT
    #[arg(long = "relay", value_name = "URL")]
    pub relays: Vec<String>,
    /// Only routes whose name contains this
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Print one snapshot and exit (what a pipe or cron gets anyway)
    #[arg(long)]
    pub once: bool,
}

pub async fn run(ctx: &Ctx, args: TopArgs) -> anyhow::Result<()> {
    let mut source = Source::open(&ctx.config, ctx.connect_timeout, args.relays.clone()).await?;
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    if args.once || !terminal || ctx.out.is_json() {
        let snap = source.one(args.filter.as_deref(), args.interval.0).await?;
        print_snapshot(ctx, &snap);
        return Ok(());
    }
    Ok(live(&args, source).await?)
}

fn route_cells(r: &RouteRow, tenant_col: bool) -> Vec<String> {
    let g = &r.glance;
    let mut cells = vec![if r.paused.is_some() {
        format!("{} (paused)", g.route)
    } else {
        g.route.clone()
    }];
    if tenant_col {
        cells.push(g.tenant.map(|t| t.to_string()).unwrap_or_default());
    }
    cells.extend([
        view::count(g.ripe),
        view::count(g.scheduled),
        view::count(g.processing),
        g.stale.map_or("—".into(), view::count),
        view::count(g.failed),
        r.oldest_ripe_age_seconds
            .map_or("—".into(), crate::duration::age_of_seconds),
        view::per_second(r.delivered_per_second),
    ]);
    cells
}

const ROUTE_HEADER: [&str; 7] = [
    "ripe",
    "scheduled",
    "processing",
    "stale",
    "failed",
    "oldest ripe",
    "delivered",
];

fn header(tenant_col: bool) -> Vec<&'static str> {
    let mut h = vec!["route"];
    if tenant_col {
        h.push("tenant");
    }
    h.extend(ROUTE_HEADER);
    h
}

/// One snapshot, for a pipe, cron or a script.
fn print_snapshot(ctx: &Ctx, s: &Snapshot) {
    if ctx.out.is_json() {
        ctx.out.json(s);
        return;
    }
    let tenant_col = s.routes.iter().any(|r| r.glance.tenant.is_some());
    let mut table = super::output::table();
    table.set_header(header(tenant_col));
    for r in &s.routes {
        table.add_row(route_cells(r, tenant_col));
    }
    let mut out = format!("{}\n{table}\n", s.headline());
    if !s.groups.is_empty() {
        out.push_str(&format!(
            "\nfailure groups{}:\n",
            if s.groups_sampled {
                format!(" (from the first {GROUP_SAMPLE} failed rows)")
            } else {
                String::new()
            }
        ));
        for g in s.groups.iter().take(5) {
            out.push_str(&format!("  {}\n", view::group_line(g)));
        }
    }
    for r in &s.relays {
        out.push_str(&format!("relay {}\n", r.line()));
    }
    for r in &s.registered {
        out.push_str(&format!("relay {}\n", r.summary(s.at)));
    }
    for r in &s.routes {
        if let Some(p) = &r.paused {
            out.push_str(&format!("route {} PAUSED {p}\n", r.glance.route));
        }
    }
    ctx.out.data(&out);
}

/// Terminal input, read on a thread of its own.
fn spawn_keys() -> (
    tokio::sync::mpsc::UnboundedReceiver<Event>,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
            if event::poll(Duration::from_millis(100)).unwrap_or(false) {
                match event::read() {
                    Ok(e) => {
                        if tx.send(e).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        }
    });
    (rx, stop)
}

async fn live(args: &TopArgs, mut source: Source<'_>) -> Result<(), Error> {
    let mut screen = Browser::open(&mut source, args.filter.clone()).await?;
    // restores the terminal on every exit, a panic included (ratatui's hook)
    let mut terminal = ratatui::init();
    let (mut keys, stop) = spawn_keys();
    let mut tick = tokio::time::interval(args.interval.0);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let outcome: Result<(), Error> = async {
        loop {
            terminal
                .draw(|f| draw(f, &screen))
                .map_err(|e| Error::io("drawing the screen", e))?;
            tokio::select! {
                _ = tick.tick() => screen.refresh(&mut source).await,
                key = keys.recv() => {
                    let Some(event) = key else {
                        return Ok(());
                    };
                    let Event::Key(k) = event else {
                        continue;
                    };
                    if k.kind != KeyEventKind::Press {
                        continue;
                    }
                    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
                        return Ok(());
                    }
                    let Some(key) = key_of(k.code) else {
                        continue;
                    };
                    if screen.on(&mut source, key).await? {
                        return Ok(());
                    }
                }
            }
        }
    }
    .await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    ratatui::restore();
    outcome
}

/// A key the view knows.
fn key_of(code: KeyCode) -> Option<Key> {
    Some(match code {
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Tab => Key::Tab,
        _ => return None,
    })
}

fn draw(f: &mut ratatui::Frame, screen: &Browser) {
    let [head, body, lower, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(5),
        Constraint::Length(8),
        Constraint::Length(1),
    ])
    .areas(f.area());
    f.render_widget(Paragraph::new(screen.snap.headline()).bold(), head);

    if let Some((route, rows)) = &screen.detail {
        let lines: Vec<Row> = rows
            .iter()
            .map(|r| {
                Row::new(vec![
                    r.status.clone(),
                    r.id.to_string(),
                    r.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                    r.attempts.to_string(),
                    r.last_error.clone().unwrap_or_default(),
                ])
            })
            .collect();
        let table = Table::new(
            lines,
            [
                Constraint::Length(10),
                Constraint::Length(36),
                Constraint::Length(19),
                Constraint::Length(8),
                Constraint::Min(10),
            ],
        )
        .header(Row::new(vec!["status", "id", "created at", "attempts", "last error"]).bold())
        .block(Block::bordered().title(format!(
            " {route}: oldest pending and failed rows (Esc back) "
        )));
        f.render_widget(table, body.union(lower));
    } else {
        let tenant_col = screen.snap.routes.iter().any(|r| r.glance.tenant.is_some());
        let rows: Vec<Row> = screen
            .snap
            .routes
            .iter()
            .map(|r| Row::new(route_cells(r, tenant_col)))
            .collect();
        let mut widths = vec![Constraint::Min(12)];
        if tenant_col {
            widths.push(Constraint::Length(36));
        }
        widths.extend([Constraint::Length(11); 7]);
        let title = match &screen.filter {
            Some(f) => format!(" routes matching {f:?} "),
            None => " routes ".into(),
        };
        let table = Table::new(rows, widths)
            .header(Row::new(header(tenant_col)).bold())
            .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
            .block(Block::bordered().title(title));
        let mut selected = TableState::default().with_selected(screen.selected);
        f.render_stateful_widget(table, body, &mut selected);

        let [groups, relays] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(lower);
        let focus = screen.focus;
        let picked = screen.group;
        let lines: Vec<Line> = screen
            .visible_groups()
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let line = Line::from(view::group_line(g));
                if focus == Focus::Groups && i == picked {
                    line.reversed()
                } else {
                    line
                }
            })
            .collect();
        let title = if screen.snap.groups_sampled {
            format!(" failure groups (first {GROUP_SAMPLE} failed rows) ")
        } else {
            " failure groups ".into()
        };
        f.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(title)),
            groups,
        );
        let mut lines: Vec<Line> = screen
            .snap
            .relays
            .iter()
            .map(|r| Line::from(r.line()))
            .collect();
        lines.extend(
            screen
                .snap
                .registered
                .iter()
                .map(|r| Line::from(r.summary(screen.snap.at))),
        );
        lines.extend(screen.snap.routes.iter().filter_map(|r| {
            r.paused
                .as_ref()
                .map(|p| Line::from(format!("route {} PAUSED: {}", r.glance.route, p.reason)))
        }));
        if lines.is_empty() {
            lines.push(Line::from(
                "no relay registered (outbox.registry) nor given (--relay http://HOST:PORT)",
            ));
        }
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .block(Block::bordered().title(" relays ")),
            relays,
        );
    }

    let footer = screen.footer();
    f.render_widget(Paragraph::new(footer).reversed(), foot);
}
