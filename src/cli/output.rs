//! Writing to the terminal: data to stdout (a closed pipe ends the program quietly with 0),
//! messages to stderr, progress only on a terminal.

use std::io::{IsTerminal, Write};

use comfy_table::{ContentArrangement, Table, presets};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    /// Human-readable tables and text.
    #[default]
    Table,
    /// One JSON document.
    Json,
    /// One JSON object per line.
    Jsonl,
}

#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub format: Format,
    pub quiet: bool,
    pub color: bool,
    /// Data goes to stderr: stdout carries something else (events relayed or replayed to
    /// `stdout`). See [`Output::on_stderr`].
    pub data_on_stderr: bool,
}

impl Output {
    /// The same output with its data on stderr (when `yes`), for a command whose stdout carries
    /// the events it sends: a report there is a message, so `-q` hides it, unless JSON was asked for.
    pub fn on_stderr(self, yes: bool) -> Self {
        Self {
            data_on_stderr: yes || self.data_on_stderr,
            ..self
        }
    }

    /// Writes data to stdout. A closed pipe (`outboxctl … | head`) takes no more of it, and the
    /// command goes on to its end and its own exit code: one that exited 0 at once left a
    /// `migrate` applied a step or two, a `partitions check --fix` a day, and said success.
    pub fn data(&self, text: &str) {
        static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if self.data_on_stderr {
            if !self.quiet || self.is_json() {
                crate::telemetry::stderr_line(format_args!("{}", text.trim_end_matches('\n')));
            }
            return;
        }
        if CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let mut out = std::io::stdout().lock();
        let end = if text.ends_with('\n') { "" } else { "\n" };
        if let Err(e) = write!(out, "{text}{end}").and_then(|()| out.flush()) {
            let closed = e.kind() == std::io::ErrorKind::BrokenPipe;
            CLOSED.fetch_or(closed, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn json<T: Serialize>(&self, value: &T) {
        let text = match self.format {
            Format::Jsonl => serde_json::to_string(value),
            _ => serde_json::to_string_pretty(value),
        }
        .expect("reports serialise");
        self.data(&text);
    }

    /// A list as the format asks: a JSON array, one JSON object per line, or a table with the
    /// comma-separated `header` and a row of `cells` per item (a note of `empty` when there are
    /// no items). Whether a table was printed.
    pub fn list<T: Serialize>(
        &self,
        items: &[T],
        empty: &str,
        header: &str,
        cells: impl Fn(&T) -> Vec<String>,
    ) -> bool {
        match self.format {
            Format::Json => self.json(&items),
            Format::Jsonl => items
                .iter()
                .for_each(|i| self.data(&serde_json::to_string(i).expect("serialises"))),
            Format::Table if items.is_empty() => self.note(empty),
            Format::Table => {
                self.table(header.split(','), items.iter().map(cells));
                return true;
            }
        }
        false
    }

    /// A [`table_of`] its header and rows, as data.
    pub fn table<C: Into<comfy_table::Cell>>(
        &self,
        header: impl IntoIterator<Item = C>,
        rows: impl IntoIterator<Item = Vec<String>>,
    ) {
        self.data(&table_of(header, rows).to_string());
    }

    /// `value` as JSON when the format asks for JSON, else what `text` writes.
    pub fn show<T: Serialize>(&self, value: &T, text: impl FnOnce()) {
        if self.is_json() {
            self.json(value);
        } else {
            text();
        }
    }

    pub fn is_json(&self) -> bool {
        matches!(self.format, Format::Json | Format::Jsonl)
    }

    /// A message for a person, on stderr, unless `-q`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            crate::telemetry::stderr_line(format_args!("{text}"));
        }
    }

    /// A warning, on stderr, even with `-q`.
    pub fn warn(&self, text: &str) {
        crate::telemetry::warning(text, self.color);
    }

    /// Each of `items` on a line of its own after `prefix` (`applied: …`).
    pub fn lines<T: std::fmt::Display>(&self, prefix: &str, items: impl IntoIterator<Item = T>) {
        items
            .into_iter()
            .for_each(|i| self.data(&format!("{prefix}{i}")));
    }

    /// A spinner or bar on stderr, hidden unless stderr is a terminal (and not `-q`).
    pub fn progress(&self, len: Option<u64>, message: &str) -> ProgressBar {
        if self.quiet || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = match len {
            Some(n) => ProgressBar::new(n).with_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} ({elapsed})")
                    .expect("valid template")
                    .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner(),
        };
        bar.set_message(message.to_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    }
}

/// A table for people: box-drawing on a terminal, plain ASCII in a pipe, and wrapped to the
/// terminal's width.
pub fn table() -> Table {
    let mut t = Table::new();
    if std::io::stdout().is_terminal() {
        t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    } else {
        t.load_preset(presets::ASCII_HORIZONTAL_ONLY);
    }
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t
}

/// A [`table`] with its header and rows.
pub fn table_of<C: Into<comfy_table::Cell>>(
    header: impl IntoIterator<Item = C>,
    rows: impl IntoIterator<Item = Vec<String>>,
) -> Table {
    let mut t = table();
    t.set_header(header);
    rows.into_iter().for_each(|r| {
        t.add_row(r);
    });
    t
}

/// An error as a cell: whole in a pipe, on a terminal one line of 60 characters at most.
pub fn error_cell(text: Option<&str>) -> String {
    let text = text.unwrap_or_default();
    match std::io::stdout().is_terminal() {
        true => crate::text::clip(&text.replace('\n', " "), 60),
        false => text.to_owned(),
    }
}
