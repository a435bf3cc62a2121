//! `schema print` writes the specification's text, character for character.

use crate::common::{ERROR, OK, ob};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn fixtures_are_the_specification_text() {
    // The fixtures are copied verbatim from the specification; when the spec is beside the
    // checkout (as in CI), prove they still are.
    let spec_path = format!(
        "{}/../shared/spec/outbox-table-schema.md",
        env!("CARGO_MANIFEST_DIR")
    );
    let Ok(spec) = std::fs::read_to_string(&spec_path) else {
        eprintln!("note: {spec_path} not found; fixtures not re-checked against the specification");
        return;
    };
    for name in [
        "spec_outbox.sql",
        "spec_retries.sql",
        "spec_traceparent.sql",
        "spec_hlc.sql",
        "spec_hlc_checkpoint.sql",
        "spec_delivery_log.sql",
        "spec_mongo_indexes.js",
        "spec_mongo_hlc_index.js",
    ] {
        let text = fixture(name);
        assert!(
            spec.contains(text.trim_end()),
            "{name} is not verbatim in the specification"
        );
    }
}

#[test]
fn default_postgres_schema_is_the_specification() {
    let r = ob(["schema", "print"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.stdout, fixture("spec_outbox.sql"));
}

#[test]
fn optional_parts_are_the_specification_text_in_order() {
    let r = ob(["schema", "print", "--with", "all", "--storage", "consume"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    let expected = [
        fixture("spec_outbox.sql"),
        fixture("spec_traceparent.sql"),
        fixture("spec_hlc.sql"),
        fixture("spec_hlc_checkpoint.sql"),
        fixture("spec_delivery_log.sql"),
    ]
    .join("\n");
    assert_eq!(r.stdout, expected);
}

#[test]
fn config_flags_select_parts_too() {
    let r = ob(["schema", "print", "--hlc-ordering"]).run();
    assert_eq!(
        r.stdout,
        [fixture("spec_outbox.sql"), fixture("spec_hlc.sql")].join("\n")
    );
}

#[test]
fn mongo_script_holds_the_specification_lines() {
    let r = ob(["schema", "print", "--backend", "mongo", "--with", "hlc"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout
            .contains(fixture("spec_mongo_indexes.js").trim_end()),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains(fixture("spec_mongo_hlc_index.js").trim_end()),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("db.outbox.createIndex({ id: 1 }, { unique: true })")
    );
    assert!(r.stdout.starts_with("// outbox collection app.outbox"));
}

#[test]
fn names_derive_from_the_table_and_are_quoted_only_where_needed() {
    let r = ob([
        "schema",
        "print",
        "--relation",
        "Shop.\"Order Events\"",
        "--with",
        "hlc,delivery-log",
        "--storage",
        "consume",
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    insta::assert_snapshot!("quoted_names", r.stdout);
}

#[test]
fn mongo_collection_names_that_clash_with_db_methods_use_get_collection() {
    let r = ob([
        "schema",
        "print",
        "--backend",
        "mongo",
        "--collection",
        "shop.stats",
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    insta::assert_snapshot!("mongo_stats", r.stdout);
}

/// `wake` and `replay` add nothing to a MongoDB script: it says so (it printed the same script
/// without a word), and prints the script as it is without them.
#[test]
fn wake_and_replay_on_mongo_say_they_add_nothing() {
    let mongo_with =
        |parts: &str| ob(["schema", "print", "--backend", "mongo", "--with", parts]).run();
    let plain = ob(["schema", "print", "--backend", "mongo"]).run();
    let r = mongo_with("wake,replay");
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.stdout, plain.stdout);
    assert!(r.stderr.contains("wake needs nothing on MongoDB"), "{r:?}");
    assert!(
        r.stderr.contains("replay on MongoDB reads through"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("{ outbox_route: 1, status: 1, created_at: 1, id: 1 }")
    );
    let said = "(outbox_route, status, created_at, id)";
    assert!(r.stderr.contains(said), "{r:?}");
    // in HLC order, the index it names is the one printed for that order
    let r = mongo_with("replay,hlc");
    let said = "(outbox_route, status, hlc, created_at, id)";
    assert!(r.stderr.contains(said), "{r:?}");
    assert!(
        r.stdout
            .contains("{ outbox_route: 1, status: 1, hlc: 1, created_at: 1, id: 1 }")
    );
}

#[test]
fn delivery_log_on_mongo_is_refused() {
    let r = ob([
        "schema",
        "print",
        "--backend",
        "mongo",
        "--with",
        "delivery-log",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("PostgreSQL-only"), "{r:?}");
    assert!(r.stdout.is_empty());
}

#[test]
fn json_format_wraps_the_script() {
    let r = ob(["schema", "print", "--format", "json"]).run();
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["backend"], "postgres");
    assert_eq!(v["script"].as_str().unwrap(), fixture("spec_outbox.sql"));
}

#[test]
fn outboxctls_own_parts_print_only_when_named() {
    let r = ob(["schema", "print", "--with", "wake,replay"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains("CREATE TRIGGER outbox_wake AFTER INSERT ON app.outbox")
            && r.stdout.contains(
                "CREATE INDEX outbox_replay_idx\n    ON app.outbox (outbox_route, created_at, id) WHERE status = 'published';"
            ),
        "{r:?}"
    );
    let all = ob(["schema", "print", "--with", "all"]).run();
    assert!(
        !all.stdout.contains("outbox_wake") && !all.stdout.contains("replay"),
        "{all:?}"
    );
}

/// Tenants sharing the outbox table, each with a delivery log of its own: the table's DDL once,
/// then each tenant's log (the table used to be printed once per tenant, and the script failed
/// when pasted).
#[test]
fn a_table_tenants_share_is_printed_once_beside_each_tenants_log() {
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let cfg = crate::common::config_file(
        "schema_print_tenant_logs",
        &format!(
            "outbox:\n  relation: app.outbox\n  storage: consume\n  delivery_log: app.d_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n"
        ),
    );
    let r = ob(["schema", "print"]).config(&cfg).code(OK);
    assert_eq!(
        r.stdout.matches("CREATE TABLE app.outbox (").count(),
        1,
        "{}",
        r.stdout
    );
    for t in [a, b] {
        let log = format!("CREATE TABLE app.d_{} (", t.replace('-', ""));
        assert_eq!(r.stdout.matches(&log).count(), 1, "{log}: {}", r.stdout);
    }
}

/// The node's one HLC checkpoint beside a relation whose schema is a tenant's: refused, naming
/// `outbox.hlc_checkpoint` (it used to land in the first tenant's schema); named, it is printed.
#[test]
fn a_checkpoint_beside_a_per_tenant_schema_must_be_named() {
    let cfg = crate::common::config_file(
        "schema_print_tenant_schema",
        "outbox:\n  relation: app_{tenant}.outbox\n  tenant_aware: true\n  tenants: [0190c4e2-8a6c-7e4a-9b1e-00000000000a]\n",
    );
    let r = ob(["schema", "print", "--with", "checkpoint"])
        .config(&cfg)
        .code(ERROR);
    assert!(r.stderr.contains("outbox.hlc_checkpoint"), "{r:?}");
    assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
    let r = ob(["schema", "print", "--with", "checkpoint"])
        .args(["--hlc-checkpoint", "app.hlc_checkpoint"])
        .config(&cfg)
        .code(OK);
    assert!(
        r.stdout.contains("CREATE TABLE app.hlc_checkpoint ("),
        "{}",
        r.stdout
    );
}

/// An outbox name whose registry names (derived from it) would pass 63 bytes says how to name
/// the registry instead, whichever name is the first too long and whichever command reads the
/// configuration (it said only that the pauses index was too long, and at 50 to 63 bytes that
/// the registry or its pauses table was, without a fix; `inspect` took a name too long for the
/// pauses index).
#[test]
fn a_registry_name_too_long_says_how_to_name_it() {
    let fix = "outbox.registry: schema.table, or set outbox.registry: off";
    for (len, command) in [(45, "schema"), (50, "inspect"), (57, "inspect")] {
        let relation = format!("x.{}", "a".repeat(len));
        let args: &[&str] = match command {
            "schema" => &["schema", "print"],
            _ => &["inspect", "--database-url", "postgres://u:pw@127.0.0.1:1/x"],
        };
        let r = ob(args).args(["--relation", &relation]).run();
        assert_eq!(r.code, ERROR, "{len}: {r:?}");
        assert!(
            r.stderr.contains("which PostgreSQL would truncate"),
            "{len}: {r:?}"
        );
        assert!(r.stderr.contains(fix), "{len}: {r:?}");
    }
    let relation = format!("x.{}", "a".repeat(45));
    let off = crate::common::config_file(test_name!(), "outbox:\n  registry: off\n");
    let r = ob(["schema", "print", "--relation", &relation])
        .config(&off)
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    // asked for, a registry that is off is said (nothing was printed, without a word)
    for backend in [&["--backend", "postgres"][..], &["--backend", "mongo"]] {
        let r = ob(["schema", "print", "--with", "registry"])
            .args(backend)
            .config(&off)
            .run();
        assert_eq!(r.code, OK, "{r:?}");
        assert!(
            r.stderr.contains("note: no relay registry to print"),
            "{r:?}"
        );
        assert!(!r.stdout.contains("_relays"), "{r:?}");
    }
    let r = ob(["schema", "print", "--with", "registry"]).run();
    assert!(
        r.stdout.contains("outbox_relays") && r.stderr.is_empty(),
        "{r:?}"
    );
}
