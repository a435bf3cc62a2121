//! The crate's floors: every `crate::` path between top-level modules of `src/` goes down a
//! floor, never sideways into a circle or back up. A new top-level module must be given its
//! floor here. And no file of `src/` or `tests/` grows past 700 lines. Hermetic: reads the
//! source, needs no server.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. A module may import only from floors below its own.
const FLOORS: &[&[&str]] = &[
    // pure types and rules (durations and ages first: the others print them)
    &["duration", "text"],
    &["dburl", "exit_code", "fleet", "hlc", "interrupt", "vacuum"],
    &["model", "target"],
    // a destination URL (its `postgres-table:` names a table)
    &["desturl"],
    // OpenTelemetry: whether tracing is on, and the spans of what is sent
    &["telemetry"],
    // configuration: file + environment + flags → one resolved Config
    &["config"],
    // drivers' connections and the fault type classifying their errors
    &["db"],
    // one module per destination kind, shared by relay and replay
    &["destination"],
    // the top-level error wrapping the areas' errors; one mapping to exit codes
    &["error"],
    &["wake"],
    &["schema", "replay"],
    // the backend switch and the per-backend stores
    &["store"],
    // the relay engine; operator logic over the stores
    &["relay", "ops"],
    &["cli"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `pub mod` names `lib.rs` declares.
fn top_level_modules() -> BTreeSet<String> {
    std::fs::read_to_string(src().join("lib.rs"))
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_owned())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a piece of source names through `crate::` (code only, not comments),
/// including each name in a `crate::{a, b::c}` group. `crate::Error` is the `error` module.
fn named_modules(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut take = |word: &str| {
        let word = if word == "Error" { "error" } else { word };
        if modules.contains(word) {
            found.insert(word.to_owned());
        }
    };
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    take(item.trim().split("::").next().unwrap_or_default());
                }
            } else {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                take(&word);
            }
        }
    }
    found
}

#[test]
fn every_top_level_module_has_a_floor() {
    let placed: BTreeSet<String> = FLOORS
        .iter()
        .flat_map(|f| f.iter().map(|m| (*m).to_owned()))
        .collect();
    let modules = top_level_modules();
    let missing: Vec<_> = modules.difference(&placed).collect();
    let gone: Vec<_> = placed.difference(&modules).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "give each new module of lib.rs a floor in tests/cli/floors.rs (missing: {missing:?}; no longer in lib.rs: {gone:?})"
    );
}

#[test]
fn imports_only_go_down_the_floors() {
    let modules = top_level_modules();
    let floor_of: BTreeMap<&str, usize> = FLOORS
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.iter().map(move |m| (*m, i)))
        .collect();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src()).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let from = first.to_str().unwrap().trim_end_matches(".rs");
        let Some(&from_floor) = floor_of.get(from) else {
            continue; // lib.rs, main.rs
        };
        let source = std::fs::read_to_string(&file).unwrap();
        for to in named_modules(&source, &modules) {
            if to != from && floor_of[to.as_str()] >= from_floor {
                wrong.push(format!("{} uses crate::{to}", relative.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go sideways or up a floor (see FLOORS in tests/cli/floors.rs and ../shared/DESIGN.md):\n{}",
        wrong.join("\n")
    );
}

/// What only the command line may use: argument parsing, `anyhow`, tables, progress bars,
/// prompts and the terminal (`../shared/DESIGN.md`: the library has none of them).
const COMMAND_LINE_ONLY: &[&str] = &[
    "clap",
    "anyhow",
    "comfy_table",
    "indicatif",
    "dialoguer",
    "ratatui",
    "crossterm",
];

/// A file's code outside its unit test modules (`#[cfg(test)] mod … { … }`, skipped by their
/// braces), without comments.
fn code_outside_tests(source: &str) -> String {
    let mut code = String::new();
    let mut lines = source.lines().peekable();
    let mut depth = 0i32; // inside a test module while > 0
    while let Some(line) = lines.next() {
        let text = line.split("//").next().unwrap_or_default();
        let next = lines.peek().map(|l| l.trim()).unwrap_or_default();
        if depth == 0
            && line.trim() == "#[cfg(test)]"
            && next.starts_with("mod ")
            && next.ends_with('{')
        {
            let opening = lines.next().unwrap_or_default();
            depth += braces(opening);
            continue;
        }
        if depth > 0 {
            depth += braces(text);
            continue;
        }
        code.push_str(text);
        code.push('\n');
    }
    code
}

/// `{` minus `}` on a line of code.
fn braces(text: &str) -> i32 {
    text.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// The crates of [`COMMAND_LINE_ONLY`] a piece of code names as a path or a `use`.
fn command_line_crates(code: &str) -> Vec<&'static str> {
    COMMAND_LINE_ONLY
        .iter()
        .copied()
        .filter(|krate| {
            code.match_indices(krate).any(|(at, _)| {
                let before = code[..at].chars().next_back().unwrap_or(' ');
                let after = &code[at + krate.len()..];
                !(before.is_alphanumeric() || before == '_' || before == ':')
                    && (after.starts_with("::") || after.starts_with('!'))
            })
        })
        .collect()
}

#[test]
fn the_library_names_no_command_line_crate() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let cli = src().join("cli");
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&cli)) {
        let name = file.file_name().unwrap().to_str().unwrap();
        if name == "main.rs" || name.ends_with("tests.rs") {
            continue; // the binary's entry; a module's unit tests
        }
        let code = code_outside_tests(&std::fs::read_to_string(file).unwrap());
        for krate in command_line_crates(&code) {
            wrong.push(format!(
                "{} uses {krate}",
                file.strip_prefix(src()).unwrap().display()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the library has no clap, anyhow, tables, progress, prompts or terminal: move this into src/cli/ (or map it there):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_command_line_crate_scan_sees_paths_and_macros_and_skips_tests_and_comments() {
    let source = "use clap::ValueEnum;\nfn f() -> anyhow::Result<()> { anyhow!(\"x\") }\n// ratatui::init()\nlet my_clap::x;\n#[cfg(test)]\nmod tests {\n    use indicatif::ProgressBar;\n}\n";
    assert_eq!(
        command_line_crates(&code_outside_tests(source)),
        ["clap", "anyhow"]
    );
    assert!(command_line_crates("derive(serde::Serialize, clap::ValueEnum)").contains(&"clap"));
    assert!(
        command_line_crates(&code_outside_tests("let ratatui_like = 1; // clap::X")).is_empty()
    );
}

/// The longest a file of `src/` or `tests/` may grow: past it, a file holds more than one
/// thing and is split by what it does.
const MOST_LINES: usize = 700;

#[test]
fn no_source_or_test_file_is_over_700_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(&root.join("tests"), &mut files);
    assert!(files.len() > 50, "the walk found too few files: {files:?}");
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > MOST_LINES)
        .map(|(f, n)| format!("{} has {n} lines", f.strip_prefix(root).unwrap().display()))
        .collect();
    assert!(
        long.is_empty(),
        "split these files by what they do (at most {MOST_LINES} lines each):\n{}",
        long.join("\n")
    );
}

/// The command line is a thin shell: parse, one library call, render (../shared/DESIGN.md).
const CLI_MOST_LINES: usize = 2_500;

#[test]
fn the_command_line_stays_a_thin_shell() {
    let mut files = Vec::new();
    rust_files(&src().join("cli"), &mut files);
    assert!(files.len() > 10, "the walk found too few files: {files:?}");
    let lines: usize = (files.iter())
        .map(|f| std::fs::read_to_string(f).unwrap().lines().count())
        .sum();
    assert!(
        lines < CLI_MOST_LINES,
        "src/cli has {lines} lines (fewer than {CLI_MOST_LINES} wanted): move what decides, selects or computes into the library, and keep clap, tables, prompts and the TUI here"
    );
}

#[test]
fn the_scanner_sees_paths_groups_and_the_error_alias_and_skips_comments() {
    let modules: BTreeSet<String> = ["db", "error", "store", "model"]
        .into_iter()
        .map(String::from)
        .collect();
    let source = "use crate::db::fault::Fault;\nuse crate::{model::Row, Error};\n// crate::store in a comment\nfn f() -> crate::store::X {}\n";
    let found = named_modules(source, &modules);
    assert_eq!(
        found,
        ["db", "error", "model", "store"]
            .into_iter()
            .map(String::from)
            .collect()
    );
    let comment_only = named_modules("/// see crate::store\n", &modules);
    assert!(comment_only.is_empty());
}
