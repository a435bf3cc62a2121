//! Values past what they can mean, names that could inject SQL, and flags that do not go
//! together: refused by name before any I/O, exit 2, nothing changed.

use crate::common::{ERROR, ob, pg_url};

/// Durations past what anything can mean are refused by name, before any I/O, instead of
/// overflowing into a panic (exit 101) at run time.
#[test]
fn absurd_durations_are_refused_with_the_limit() {
    for (yaml, says) in [
        (
            "relay:\n  pass_statement_timeout: 4000000000000000000s\n",
            "100 years at most",
        ),
        (
            "relay:\n  reclaim_stale_after: 1000000y\n",
            "100 years at most",
        ),
        (
            "relay:\n  pass_statement_timeout: 30d\n",
            "PostgreSQL's longest timeout",
        ),
        (
            "partitions:\n  lock_timeout: 30d\n",
            "partitions.lock_timeout (30days) must be at most",
        ),
    ] {
        let cfg = crate::common::config_file("absurd_durations", yaml);
        let r = ob(["schema", "print", "--config", &cfg]).run();
        assert_eq!(r.code, ERROR, "{yaml}: {r:?}");
        assert!(r.stderr.contains(says), "{yaml}: {r:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
    }
    let r = ob(["inspect", "pending", "--older-than", "1000000y"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("100 years at most"), "{r:?}");
    // a flag that becomes a PostgreSQL timeout: refused at parse (the server refused it later,
    // after a --dry-run had passed); no database is reached, none is given
    for args in [
        &["migrate", "--check", "--lock-timeout", "30d"][..],
        &[
            "partitions",
            "add-ahead",
            "--dry-run",
            "--lock-timeout",
            "25d",
        ],
        &[
            "storage",
            "to-consume",
            "--step",
            "3",
            "--check-timeout",
            "30d",
        ],
        &["storage", "to-consume", "--lock-timeout", "1y"],
    ] {
        let r = ob(args).run();
        assert_eq!(r.code, ERROR, "{args:?}: {r:?}");
        assert!(
            r.stderr
                .contains("is longer than PostgreSQL's longest timeout, 24days 20h 31m 23s 647ms"),
            "{args:?}: {r:?}"
        );
    }
    let r = ob(["migrate", "--check", "--lock-timeout", "24d"]).run();
    assert!(
        !r.stderr.contains("longest timeout"),
        "24 days is taken: {r:?}"
    );
}

/// Day counts of the partition commands past any real date are refused by name, before any
/// I/O, instead of panicking (exit 101) on a date out of range.
#[test]
fn absurd_day_counts_are_refused_with_the_limit() {
    for args in [
        &["drop-expired", "--keep-days", "4000000000", "--dry-run"][..],
        &["add-ahead", "--days", "40000"],
        &["check", "--min-ahead", "40000"],
    ] {
        let r = ob(["partitions"]).args(args).run();
        assert_eq!(r.code, ERROR, "{args:?}: {r:?}");
        assert!(r.stderr.contains("0..=36500"), "{args:?}: {r:?}");
    }
    let cfg = crate::common::config_file("absurd_days", "partitions:\n  keep_days: 40000\n");
    let r = ob(["partitions", "list", "--config", &cfg]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("partitions.keep_days: at most 36500"),
        "{r:?}"
    );
}

#[test]
fn injection_in_a_relation_is_refused_before_any_io() {
    let r = ob([
        "migrate",
        "--database-url",
        &pg_url(),
        "--relation",
        "app.outbox; DROP TABLE x",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("';' is not a letter, digit, _ or $"),
        "{r:?}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let r = ob(["migrate", "--dry-run", "--check"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    let r = ob(["no-such-command"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    // a flag of one mode given to the other is refused, not ignored
    for (mode, flag, value) in [
        ("--loop", "--max-passes", "3"),
        ("--once", "--metrics-addr", "127.0.0.1:9"),
    ] {
        let r = ob(["relay", mode, flag, value]).run();
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(r.stderr.contains("cannot be used with"), "{r:?}");
    }
    // the endpoint's settings without the endpoint are refused, not ignored
    for (flag, value) in [
        ("--health-max-failing", "1s"),
        ("--metrics-header-timeout", "1s"),
        ("--metrics-max-connections", "8"),
    ] {
        let r = ob(["relay", "--loop", flag, value]).run();
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(r.stderr.contains("--metrics-addr"), "{flag}: {r:?}");
        // nor beside --once, which serves no endpoint (clap let that requirement go unmet)
        let r = ob(["relay", "--once", flag, value]).run();
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(r.stderr.contains("cannot be used with"), "{flag}: {r:?}");
    }
    // no pass at all is no drain (0 ran one pass a route, and published)
    let r = ob(["relay", "--once", "--max-passes", "0"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("--max-passes"), "{r:?}");
    // a route that cannot be one (an empty one matched nothing, exit 0; a control character
    // was staged as given)
    for (args, why) in [
        (&["inspect", "pending", "--route", ""][..], "never empty"),
        (&["requeue", "--all", "--route", " "], "never empty"),
        (&["replay", "--route", "", "--dry-run"], "never empty"),
        (
            &[
                "emit",
                "--route",
                "r\u{1}",
                "--type",
                "t",
                "--payload",
                "{}",
            ],
            "control character",
        ),
        // a quoting slip, an unset variable, a page of nothing: refused, not staged or
        // matched (`orders ` was staged beside `orders`; `--limit 0` listed no rows, exit 0;
        // `--retrying` with `--limit` listed parked rows only)
        (
            &[
                "emit",
                "--route",
                "orders ",
                "--type",
                "t",
                "--payload",
                "{}",
            ],
            "starts or ends with a space",
        ),
        (
            &[
                "emit",
                "--route",
                "o",
                "--type",
                "t",
                "--payload",
                "{}",
                "--ordering-key",
                "",
            ],
            "it is empty",
        ),
        (&["replay", "--key", "", "--dry-run"], "it is empty"),
        // relayed or paused as written (a relay of ` orders` claimed nothing, exit 0; a pause
        // trimmed it), as emit refuses it
        (
            &["relay", "--once", "--route", "a, orders", "--to", "stdout"],
            "starts or ends with a space",
        ),
        (
            &["route", "pause", " orders", "--reason", "r"],
            "starts or ends with a space",
        ),
        (&["inspect", "failed", "--limit", "0"], "0 is not in 1.."),
        (
            &["inspect", "failed", "--retrying", "--limit", "5"],
            "cannot be used with",
        ),
    ] {
        let r = ob(args).run();
        assert_eq!(r.code, ERROR, "{args:?}: {r:?}");
        assert!(r.stderr.contains(why), "{args:?}: {r:?}");
    }
}
