//! Completions, man page, version, init.

use crate::common::{ERROR, OK, REFUSED, ob, pg_url};

#[test]
fn committed_completions_match_the_cli() {
    use clap_complete::Shell;
    let dir = format!("{}/completions", env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("OUTBOXCTL_UPDATE_COMPLETIONS").is_some();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::PowerShell,
        Shell::Elvish,
    ] {
        // the file names shells look for
        let name = match shell {
            Shell::Bash => "outboxctl.bash",
            Shell::Zsh => "_outboxctl",
            Shell::Fish => "outboxctl.fish",
            Shell::PowerShell => "_outboxctl.ps1",
            _ => "outboxctl.elv",
        };
        let path = format!("{dir}/{name}");
        let want = outboxctl::cli::completions::completion_script(shell);
        if update {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read(&path).unwrap_or_default();
        assert!(
            have == want,
            "{path} has drifted from the CLI: regenerate with OUTBOXCTL_UPDATE_COMPLETIONS=1 cargo test committed_completions"
        );
        // another program's DATABASE_URL in the environment is none of its business
        let r = ob(["completions", &shell.to_string()])
            .env("DATABASE_URL", "mysql://u:p@h/db")
            .run();
        assert_eq!(r.code, OK, "{r:?}");
        assert_eq!(
            r.stdout.trim_end().as_bytes(),
            String::from_utf8_lossy(&want).trim_end().as_bytes()
        );
    }
}

#[test]
fn man_pages_render_from_the_same_definitions() {
    let r = ob(["man"]).env("OUTBOXCTL_STORAGE", "sideways").run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.starts_with(".ie") || r.stdout.contains(".TH outboxctl"),
        "{}",
        &r.stdout[..200.min(r.stdout.len())]
    );
    let dir = std::env::temp_dir().join(crate::common::unique_name("man_pages"));
    let r = ob(["man", "--out", dir.to_str().unwrap()]).run();
    assert_eq!(r.code, OK, "{r:?}");
    for page in [
        "outboxctl.1",
        "outboxctl-relay.1",
        "outboxctl-partitions.1",
        "outboxctl-migrate.1",
    ] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(text.contains(".TH"), "{page}");
    }
    // the pages of subcommands' subcommands, which their parents' pages refer to (they were
    // never written: `partitions check --min-ahead` was in no page)
    for (page, flag) in [
        ("outboxctl-partitions-check.1", "min\\-ahead"),
        ("outboxctl-schema-print.1", "backend"),
        ("outboxctl-hlc-show.1", ".TH"),
    ] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_default();
        assert!(text.contains(flag), "{page}: {flag}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn version_names_the_commit() {
    let r = ob(["--version"]).run();
    assert_eq!(r.code, OK);
    let line = r.stdout.trim();
    assert!(
        line.starts_with(&format!("outboxctl {} (", env!("CARGO_PKG_VERSION")))
            && line.ends_with(')'),
        "{line}"
    );
}

#[test]
fn init_writes_a_loadable_file_and_never_overwrites_without_force() {
    // every file of an earlier run gone: `init` without --force refuses to overwrite one
    let dir = std::env::temp_dir().join(crate::common::unique_name("init_flags"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outboxctl.yaml");
    let p = path.to_str().unwrap();
    let r = ob([
        "init",
        "--path",
        p,
        "--database-url",
        "postgres://app:Pw1234@db/app",
        "--relation",
        "shop.outbox",
        "--storage",
        "consume",
        "--delivery-log",
        "shop.outbox_delivered",
        "--route",
        "orders",
        "--to",
        "nats://127.0.0.1:4222",
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(!r.stderr.contains("Pw1234"), "{r:?}");
    let mode = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(
        mode(&path),
        0o600,
        "a file holding a password is its owner's only"
    );
    // a URL every command would refuse is refused here, and nothing is written
    let cut = dir.join("cut.yaml");
    let r = ob(["init", "--path", cut.to_str().unwrap()])
        .args(["--database-url", "postgres://app:se#cret@db/app"])
        .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("percent-encode"), "{r:?}");
    assert!(!cut.exists() && !r.stderr.contains("se#cret"), "{r:?}");
    let routed = dir.join("routed.yaml");
    let r = ob(["init", "--path", routed.to_str().unwrap()])
        .args([
            "--database-url",
            "postgres://app@db/app",
            "--route",
            "orders",
        ])
        .args(["--to", "amqp://relay:s3cret@mq:5672/%2f"])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(mode(&routed), 0o600, "a route's password too");
    // a route the relay would refuse to start with (a NATS subject with a space), refused
    // here, nothing written (it was written, and the relay exited 2)
    let spaced = dir.join("spaced.yaml");
    let r = ob(["init", "--path", spaced.to_str().unwrap()])
        .args(["--route", "a b", "--to", "nats://127.0.0.1:4222"])
        .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("white space") && !spaced.exists(),
        "{r:?}"
    );
    // a secret in the database URL's query (it was written 0644)
    let keyed = dir.join("keyed.yaml");
    let url = "postgres://app@db/app?sslmode=require&sslpassword=s3cret";
    let r = ob([
        "init",
        "--path",
        keyed.to_str().unwrap(),
        "--database-url",
        url,
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(mode(&keyed), 0o600, "a query's secret too");
    let plain = dir.join("plain.yaml");
    let r = ob([
        "init",
        "--path",
        plain.to_str().unwrap(),
        "--database-url",
        "postgres://app@db/app",
    ])
    .run();
    assert_eq!((r.code, mode(&plain)), (OK, 0o644), "{r:?}");
    // a route with no destination is a usage error (it was written to stdout: a relay that
    // prints its events and marks them published); no URL at all is the local default, said
    let bare = dir.join("bare.yaml");
    let r = ob([
        "init",
        "--path",
        bare.to_str().unwrap(),
        "--route",
        "orders",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("--to") && !bare.exists(), "{r:?}");
    let r = ob(["init", "--path", bare.to_str().unwrap()]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stderr.contains("no database URL was given"), "{r:?}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("relation: \"shop.outbox\"")
            && text.contains("storage: consume")
            && text.contains("to: \"nats://127.0.0.1:4222\""),
        "{text}"
    );
    // every command reads it back
    let r = ob(["schema", "print"]).dir(&dir).code(OK);
    assert!(r.stdout.contains("CREATE TABLE shop.outbox ("), "{r:?}");
    let r = ob(["init", "--path", p]).run();
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(r.stderr.contains("--force"), "{r:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "left alone");
    let r = ob(["init", "--path", p, "--force", "--relation", "other.outbox"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("other.outbox")
    );
    // without --path it writes the file every later command reads: --config's, else
    // OUTBOXCTL_CONFIG's
    let named = dir.join("named.yaml");
    let n = named.to_str().unwrap();
    let r = ob(["--config", n, "init", "--relation", "named.outbox"]).code(OK);
    assert!(r.stderr.contains(&format!("wrote {n}")), "{r:?}");
    let r = ob(["schema", "print"]).env("OUTBOXCTL_CONFIG", n).code(OK);
    assert!(r.stdout.contains("CREATE TABLE named.outbox ("), "{r:?}");
    let r = ob(["init", "--relation", "again.outbox"])
        .env("OUTBOXCTL_CONFIG", n)
        .run();
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains(&format!("{n} exists; pass --force")),
        "{r:?}"
    );
    assert!(!std::fs::read_to_string(&named).unwrap().contains("again"));
    // --path wins over --config; with neither, ./outboxctl.yaml
    let other = dir.join("other.yaml");
    let o = other.to_str().unwrap();
    ob([
        "--config",
        n,
        "init",
        "--path",
        o,
        "--relation",
        "other.outbox",
    ])
    .code(OK);
    assert!(
        std::fs::read_to_string(&other)
            .unwrap()
            .contains("other.outbox")
    );
    assert!(!std::fs::read_to_string(&named).unwrap().contains("other"));
    let bare = dir.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    ob(["init", "--relation", "bare.outbox"])
        .dir(&bare)
        .code(OK);
    let text = std::fs::read_to_string(bare.join("outboxctl.yaml")).unwrap();
    assert!(text.contains("bare.outbox"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_on_a_pseudo_terminal_asks_and_offers_a_dry_run() {
    init_on_a_pseudo_terminal(&pg_url(), "init_pty");
}

/// `init` on a pseudo-terminal against `url`: it asks, writes the file, connects and shows the
/// dry run of migrate.
pub fn init_on_a_pseudo_terminal(url: &str, test: &str) {
    assert!(
        std::process::Command::new("script")
            .arg("--version")
            .output()
            .is_ok(),
        "this test drives a pseudo-terminal with util-linux `script`: apt-get install bsdutils"
    );
    let dir = std::env::temp_dir().join(crate::common::unique_name(test));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outboxctl.yaml");
    let bin = env!("CARGO_BIN_EXE_outboxctl");
    // a schema of the test's own: the dry run plans it from nothing
    let schema = crate::common::unique_name(test);
    let command = format!(
        "{bin} init --path {} --database-url {} --relation {schema}.outbox",
        path.display(),
        url
    );
    // keys, typed ahead: accept the URL and table, storage ↓ consume, features: pick the first
    // and the third, a route "orders" to the offered stdout, then yes to the dry run
    let keys = "\r\r\x1b[B\r \x1b[B\x1b[B \rorders\r\ry";
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(keys.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("no file ({e}): {screen}"));
    assert!(
        text.contains(&format!("relation: \"{schema}.outbox\"")),
        "{text}"
    );
    assert!(text.contains("storage: consume"), "{text}");
    assert!(
        text.contains("hlc_ordering: true")
            && text.contains(&format!("hlc_checkpoint: \"{schema}.hlc_checkpoint\"")),
        "{text}"
    );
    assert!(
        text.contains("\"orders\":") && text.contains("to: \"stdout\""),
        "{text}"
    );
    assert!(
        screen.contains("connected to")
            && screen.contains(&format!("CREATE TABLE {schema}.outbox (")),
        "the dry run printed the plan: {screen}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_example_configuration_loads() {
    let path = format!("{}/examples/outboxctl.yaml", env!("CARGO_MANIFEST_DIR"));
    let r = ob(["schema", "print", "--config", &path]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains("outbox_claim_hlc_idx")
            && r.stdout.contains("outbox_key_idx")
            && r.stdout.contains("outbox_delivered_default"),
        "{r:?}"
    );
}
