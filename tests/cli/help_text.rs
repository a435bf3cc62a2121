//! What a person reads, held in snapshots (as nextest keeps its error texts): the `--help` of
//! every command, and the main error messages with their exit codes. A change shows up as a
//! diff to review (`cargo insta review`), not as a silent drift.

use clap::CommandFactory;

use crate::common::{Run, ob};

/// Every command path: `[]`, `["migrate"]`, `["partitions", "add-ahead"]`, …
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut next = path.clone();
            next.push(sub.get_name().to_owned());
            walk(sub, next, out);
        }
    }
    let mut out = Vec::new();
    walk(&outboxctl::cli::Cli::command(), Vec::new(), &mut out);
    out
}

#[test]
fn every_commands_help_is_as_reviewed() {
    let paths = command_paths();
    assert!(paths.len() > 20, "found {} commands", paths.len());
    for path in paths {
        let r = ob(&path)
            .args(["--help"])
            .env("COLUMNS", "100")
            .code(crate::common::OK);
        let name = if path.is_empty() {
            "help".to_owned()
        } else {
            format!("help_{}", path.join("_").replace('-', "_"))
        };
        insta::assert_snapshot!(name, r.stdout);
    }
}

/// The exit code and standard error of a run, as one text.
fn shown(r: &Run) -> String {
    format!("exit {}\n{}", r.code, r.stderr)
}

#[test]
fn the_main_error_messages_are_as_reviewed() {
    let cases: [(&str, &[&str]); 8] = [
        (
            "unsupported_scheme",
            &["migrate", "--database-url", "mysql://root:pw@db/x"],
        ),
        (
            "relation_injection",
            &["schema", "print", "--relation", "app.outbox; DROP TABLE x"],
        ),
        (
            "unknown_destination",
            &[
                "relay",
                "--once",
                "--database-url",
                "postgres://postgres@127.0.0.1:1/test",
                "--route",
                "orders",
                "--to",
                "smtp://mail",
            ],
        ),
        (
            "requeue_without_selection",
            &[
                "requeue",
                "--database-url",
                "postgres://postgres@127.0.0.1:1/test",
            ],
        ),
        (
            "consume_with_mongo_log",
            &[
                "schema",
                "print",
                "--database-url",
                "mongodb://127.0.0.1:1/app",
                "--delivery-log",
                "app.delivered",
            ],
        ),
        (
            "bad_duration",
            &["doctor", "--max-pending-age", "5 parsecs"],
        ),
        ("unknown_flag", &["inspect", "--statsu", "failed"]),
        (
            "unreachable_postgres",
            &[
                "inspect",
                "--connect-timeout",
                "2s",
                "--database-url",
                "postgres://app:pw@127.0.0.1:1/test",
            ],
        ),
    ];
    for (name, args) in cases {
        let r = ob(args).env("COLUMNS", "100").run();
        insta::assert_snapshot!(format!("error_{name}"), shown(&r));
    }
}

/// The flag's words are the configuration file's (serde's) words, so `--storage consume` and
/// `storage: consume` name the same thing.
#[test]
fn each_value_is_spelled_as_the_configuration_spells_it() {
    use clap::ValueEnum;
    fn same<T: ValueEnum + serde::Serialize>() {
        for v in T::value_variants() {
            let flag = v.to_possible_value().unwrap().get_name().to_owned();
            let file = serde_json::to_value(v).unwrap();
            assert_eq!(file.as_str(), Some(flag.as_str()));
            assert!(T::from_str(&flag, false).is_ok(), "{flag}");
        }
    }
    same::<outboxctl::model::Storage>();
    same::<outboxctl::model::KeyOrder>();
    same::<outboxctl::dburl::Backend>();
}
