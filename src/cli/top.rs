//! `outboxctl top`: draws [`crate::ops::top::Source`]'s snapshots as a ratatui screen and reads
//! its keys ([`crate::ops::browse`] decides what they do); in a pipe or with `--once`, prints one.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState};

use super::Ctx;
use crate::Error;
use crate::ops::browse::{Browser, Focus, Key, VIEW_ROW_HEADER, route_header, view_row};
use crate::ops::top::{self as view, Snapshot, Source};

#[derive(Debug, Args)]
pub struct TopArgs {
    /// Refresh every (a snapshot's rates: readings this far apart, at most 1s)
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
        let (snap, away) = source.one(args.filter.as_deref(), args.interval.0).await?;
        print_snapshot(ctx, &snap);
        return away.map_or(Ok(()), |e| Err(e.into()));
    }
    Ok(live(&args, source).await?)
}

/// One snapshot, for a pipe, cron or a script.
fn print_snapshot(ctx: &Ctx, s: &Snapshot) {
    ctx.out.show(s, || {
        let tenant_col = s.tenant_column();
        let rows = s.routes.iter().map(|r| r.cells(tenant_col));
        let table = super::output::table_of(route_header(tenant_col), rows);
        ctx.out.data(&format!("{}\n{table}", s.headline()));
        if !s.groups.is_empty() {
            ctx.out.data(&format!("\n{}:", s.groups_title()));
            ctx.out
                .lines("  ", s.groups.iter().take(5).map(view::group_line));
        }
        ctx.out.lines("route ", s.paused_lines());
        ctx.out.lines("relay ", s.relays.iter().map(|r| r.line()));
        ctx.out
            .lines("relay ", s.registered.iter().map(|r| r.summary(s.at)));
    });
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
        let lines = rows.iter().map(|r| Row::new(view_row(r)));
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
        .header(Row::new(VIEW_ROW_HEADER).bold())
        .block(Block::bordered().title(format!(
            " {route}: oldest pending and failed rows (Esc back) "
        )));
        f.render_widget(table, body.union(lower));
    } else {
        let tenant_col = screen.snap.tenant_column();
        let rows = (screen.snap.routes.iter()).map(|r| Row::new(r.cells(tenant_col)));
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
            .header(Row::new(route_header(tenant_col)).bold())
            .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
            .block(Block::bordered().title(title));
        let mut selected = TableState::default().with_selected(screen.selected);
        f.render_stateful_widget(table, body, &mut selected);

        let [groups, relays] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(lower);
        let lines: Vec<Line> = screen
            .visible_groups()
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let line = Line::from(view::group_line(g));
                if screen.focus == Focus::Groups && i == screen.group {
                    line.reversed()
                } else {
                    line
                }
            })
            .collect();
        let scroll = (screen.group_scroll(groups.height.saturating_sub(2)), 0);
        let block = Block::bordered().title(format!(" {} ", screen.snap.groups_title()));
        f.render_widget(Paragraph::new(lines).scroll(scroll).block(block), groups);
        let (rows, width) = (relays.height, relays.width);
        let shown = screen.relay_lines(rows.saturating_sub(2), width.saturating_sub(2));
        let lines: Vec<Line> = shown.into_iter().map(Line::from).collect();
        f.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" relays ")),
            relays,
        );
    }

    let footer = screen.footer();
    f.render_widget(Paragraph::new(footer).reversed(), foot);
}
