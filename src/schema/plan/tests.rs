use super::*;
use crate::schema::desired::{MongoSchema, PgSchema};

fn schema(storage: Storage, hlc: bool) -> PgSchema {
    PgSchema {
        outbox: QualifiedName::parse("r", "app.outbox").unwrap(),
        storage,
        traceparent: false,
        hlc,
        strict_key_order: false,
        replay: false,
        wake: false,
        queue_autovacuum: false,
        checkpoint: None,
        delivery_log: None,
        sinks: vec![],
        registry: None,
    }
}

/// Catalog facts for a table created exactly as the specification says.
fn spec_table(without: &[&str]) -> TableFacts {
    let columns = OUTBOX_COLUMNS
        .iter()
        .filter(|c| !matches!(c.added_by, Some(Addition::Traceparent | Addition::Hlc)))
        .filter(|c| !without.contains(&c.name))
        .map(|c| ColumnFacts {
            name: c.name.into(),
            pg_type: c.pg_type.into(),
            not_null: c.not_null,
            default: c.default.map(Into::into),
        })
        .collect();
    let idx = |name: &str, cols: &[&str], unique: bool, primary: bool| IndexFacts {
        name: name.into(),
        using: format!("btree ({})", cols.join(", ")),
        columns: cols.iter().map(|c| c.to_string()).collect(),
        unique,
        primary,
        valid: true,
    };
    TableFacts {
        relkind: 'r',
        columns,
        indexes: vec![
            idx("outbox_pkey", &["id"], true, true),
            idx(
                "outbox_outbox_route_event_id_key",
                &["outbox_route", "event_id"],
                true,
                false,
            ),
            idx(
                "outbox_claim_idx",
                &["outbox_route", "status", "available_at", "created_at"],
                false,
                false,
            ),
        ],
        partition_key: None,
        default_partition: None,
        range_partitions: 0,
        partitions: Vec::new(),
        triggers: vec![],
        reloptions: vec![],
    }
}

fn catalog(table: Option<TableFacts>) -> PgCatalog {
    let mut c = PgCatalog {
        schemas: vec!["app".into()],
        ..Default::default()
    };
    if let Some(t) = table {
        c.tables
            .insert(QualifiedName::parse("r", "app.outbox").unwrap(), t);
    }
    c
}

#[test]
fn empty_database_gets_schema_and_table_in_transactions() {
    let plan = plan_postgres(&schema(Storage::Retain, false), &PgCatalog::default());
    let kinds: Vec<_> = plan
        .steps
        .iter()
        .map(|s| (s.kind, s.summary.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (StepKind::Transaction, "create schema app"),
            (
                StepKind::Transaction,
                "create table app.outbox and its indexes"
            ),
        ]
    );
    assert!(plan.problems.is_empty());
}

#[test]
fn spec_table_is_up_to_date() {
    let plan = plan_postgres(
        &schema(Storage::Retain, false),
        &catalog(Some(spec_table(&[]))),
    );
    assert!(plan.is_up_to_date(), "{plan:#?}");
}

#[test]
fn legacy_table_gets_the_specification_alter_and_concurrent_hlc_index() {
    let plan = plan_postgres(
        &schema(Storage::Retain, true),
        &catalog(Some(spec_table(&[
            "attempts",
            "available_at",
            "ordering_key",
        ]))),
    );
    let summaries: Vec<_> = plan.steps.iter().map(|s| s.summary.as_str()).collect();
    assert_eq!(
        summaries,
        vec![
            "add columns attempts, available_at, ordering_key to app.outbox",
            "add column hlc to app.outbox",
            "create index app.outbox_claim_hlc_idx without blocking writes",
        ]
    );
    assert_eq!(plan.steps[0].kind, StepKind::ShortLock);
    assert_eq!(plan.steps[2].kind, StepKind::Concurrent);
    assert!(
        plan.steps[2].statements[0]
            .sql
            .starts_with("CREATE INDEX CONCURRENTLY outbox_claim_hlc_idx")
    );
}

#[test]
fn retain_needs_processing_at_but_consume_does_not() {
    let t = spec_table(&["processing_at", "published_at"]);
    let plan = plan_postgres(&schema(Storage::Retain, false), &catalog(Some(t.clone())));
    assert_eq!(plan.problems.len(), 2, "{plan:#?}");
    assert!(
        plan.problems[0]
            .message
            .contains("has no column published_at")
    );
    let plan = plan_postgres(&schema(Storage::Consume, false), &catalog(Some(t)));
    assert!(plan.is_up_to_date(), "{plan:#?}");
}

#[test]
fn same_index_under_another_name_counts() {
    let mut t = spec_table(&[]);
    t.indexes[2].name = "my_claim_index".into();
    let plan = plan_postgres(&schema(Storage::Retain, false), &catalog(Some(t)));
    assert!(plan.is_up_to_date(), "{plan:#?}");
}

#[test]
fn index_name_taken_by_another_relation_is_a_problem() {
    let mut t = spec_table(&[]);
    t.indexes.remove(2);
    let mut c = catalog(Some(t));
    c.taken_names
        .push(QualifiedName::parse("r", "app.outbox_claim_idx").unwrap());
    let plan = plan_postgres(&schema(Storage::Retain, false), &c);
    assert!(plan.steps.is_empty());
    assert!(plan.problems[0].message.contains("taken"));
}

#[test]
fn missing_unique_key_is_reported() {
    let mut t = spec_table(&[]);
    t.indexes.remove(1);
    let plan = plan_postgres(&schema(Storage::Retain, false), &catalog(Some(t)));
    assert!(
        plan.problems[0]
            .message
            .contains("UNIQUE (outbox_route, event_id)")
    );
}

#[test]
fn mongo_plan_adds_missing_and_reports_conflicting() {
    let want = MongoSchema {
        outbox: crate::target::CollectionName::parse("c", "app.outbox").unwrap(),
        indexes: crate::schema::render::mongo_outbox_indexes(),
        checkpoint: None,
        registry: None,
    };
    let plan = plan_mongo(&want, &MongoCatalog::default());
    assert_eq!(plan.steps.len(), 6, "collection + 5 indexes");
    let have = MongoCatalog {
        collection_exists: true,
        indexes: vec![MongoIndexFacts {
            name: "claim_token_1".into(),
            keys: vec![("claim_token".into(), 1)],
            unique: false,
            sparse: false,
            partial: None,
        }],
        registry_collections: vec![],
    };
    let plan = plan_mongo(&want, &have);
    assert_eq!(plan.steps.len(), 4);
    assert_eq!(plan.problems.len(), 1);
}

/// Strict order's index is partial and named: an index on the same keys that holds every
/// document (what strict order created before) does not stand for it; one of its name but
/// other keys or filter is reported, not replaced.
#[test]
fn mongo_key_order_index_is_found_by_its_name_and_filter() {
    let want = MongoSchema {
        outbox: crate::target::CollectionName::parse("c", "app.outbox").unwrap(),
        indexes: crate::schema::render::mongo_key_order_indexes(false),
        checkpoint: None,
        registry: None,
    };
    let spec = &want.indexes[0];
    let keys: Vec<(String, i64)> = spec
        .keys
        .iter()
        .map(|(k, v)| (k.clone(), i64::from(*v)))
        .collect();
    let index = |name: &str, partial: Option<String>| MongoIndexFacts {
        name: name.into(),
        keys: keys.clone(),
        unique: false,
        sparse: false,
        partial,
    };
    let have = |indexes| MongoCatalog {
        collection_exists: true,
        indexes,
        registry_collections: vec![],
    };
    let old = have(vec![index(
        "outbox_route_1_ordering_key_1_created_at_1",
        None,
    )]);
    let plan = plan_mongo(&want, &old);
    assert_eq!(plan.steps.len(), 1, "{plan:?}");
    assert!(
        plan.steps[0]
            .summary
            .contains("outbox_key_order_unpublished")
            && plan.steps[0].summary.contains("$lt"),
        "{}",
        plan.steps[0].summary
    );
    let filter = spec.partial_filter().map(|p| p.to_string());
    let name = spec.name.clone().unwrap();
    let plan = plan_mongo(&want, &have(vec![index(&name, filter)]));
    assert!(
        plan.steps.is_empty() && plan.problems.is_empty(),
        "{plan:?}"
    );
    let plan = plan_mongo(&want, &have(vec![index(&name, None)]));
    assert!(plan.steps.is_empty(), "{plan:?}");
    assert_eq!(plan.problems.len(), 1, "{plan:?}");
}

#[test]
fn replay_index_is_added_without_blocking_writes_and_only_for_published_rows() {
    let mut want = schema(Storage::Retain, false);
    want.replay = true;
    let plan = plan_postgres(&want, &catalog(Some(spec_table(&[]))));
    let step = plan
        .steps
        .iter()
        .find(|s| s.summary.contains("outbox_replay_idx"))
        .unwrap_or_else(|| panic!("{plan:#?}"));
    assert_eq!(step.kind, StepKind::Concurrent);
    let sql = step.statements[0].to_string();
    assert!(
        sql.contains("CONCURRENTLY")
            && sql.contains("(outbox_route, created_at, id) WHERE status = 'published'"),
        "{sql}"
    );
    let mut hlc = schema(Storage::Retain, true);
    hlc.replay = true;
    let idx = hlc.indexes().unwrap();
    let replay = idx.iter().find(|i| i.name.name() == "outbox_replay_idx");
    assert_eq!(
        replay.unwrap().expected_def(),
        "btree (outbox_route, hlc, created_at, id) WHERE (status = 'published'::text)"
    );
}

#[test]
fn wake_trigger_is_added_to_an_existing_table_under_a_short_lock() {
    let mut want = schema(Storage::Retain, false);
    want.wake = true;
    let plan = plan_postgres(&want, &catalog(Some(spec_table(&[]))));
    let step = plan
        .steps
        .iter()
        .find(|s| {
            s.summary
                .contains("the wake function app.outboxctl_wake and trigger outbox_wake")
        })
        .unwrap_or_else(|| panic!("{plan:#?}"));
    assert_eq!(step.kind, StepKind::ShortLock);
    let sql: Vec<String> = step.statements.iter().map(ToString::to_string).collect();
    assert!(
        sql[0].contains("CREATE OR REPLACE FUNCTION app.outboxctl_wake()"),
        "{sql:?}"
    );
    assert!(
        sql[1].contains("AFTER INSERT ON app.outbox") && sql[1].contains("FOR EACH STATEMENT"),
        "{sql:?}"
    );
    let mut with_trigger = spec_table(&[]);
    with_trigger.triggers.push("outbox_wake".into());
    assert!(plan_postgres(&want, &catalog(Some(with_trigger))).is_up_to_date());
}

#[test]
fn queue_autovacuum_is_set_on_a_new_table_and_on_an_existing_one_only_when_asked() {
    let mut want = schema(Storage::Consume, false);
    want.queue_autovacuum = true;
    let fresh = plan_postgres(&want, &catalog(None));
    let create = fresh
        .steps
        .iter()
        .find(|s| s.summary.contains("create table app.outbox"))
        .unwrap();
    assert!(
        create
            .summary
            .ends_with("with autovacuum settings for a queue"),
        "{}",
        create.summary
    );
    let sql: Vec<&str> = create.statements.iter().map(|s| s.sql.as_str()).collect();
    assert!(
        sql.iter()
            .any(|s| s.starts_with("ALTER TABLE app.outbox SET (")
                && s.contains("autovacuum_vacuum_scale_factor = 0")
                && s.contains("autovacuum_vacuum_cost_delay = 0")),
        "{sql:?}"
    );
    // an existing table gets them under a short lock, once
    let existing = plan_postgres(&want, &catalog(Some(spec_table(&[]))));
    let step = existing
        .steps
        .iter()
        .find(|s| {
            s.summary
                .starts_with("set autovacuum for a queue on app.outbox")
        })
        .expect("a step");
    assert_eq!(step.kind, StepKind::ShortLock);
    let mut tuned = spec_table(&[]);
    tuned.reloptions = crate::vacuum::QUEUE_SETTINGS
        .iter()
        .map(|(k, v, _)| format!("{k}={v}"))
        .collect();
    let again = plan_postgres(&want, &catalog(Some(tuned)));
    assert!(!again.steps.iter().any(|s| s.summary.contains("autovacuum")));
    // without the setting nothing is touched, whatever the table has
    want.queue_autovacuum = false;
    let mut custom = spec_table(&[]);
    custom.reloptions = vec!["autovacuum_vacuum_scale_factor=0.05".into()];
    let plan = plan_postgres(&want, &catalog(Some(custom)));
    assert!(!plan.steps.iter().any(|s| s.summary.contains("autovacuum")));
}

#[test]
fn a_table_tenants_share_is_planned_once_beside_each_tenants_log() {
    let log = |t: &str| Some(QualifiedName::parse("log", &format!("app.delivered_{t}")).unwrap());
    let (mut a, mut b) = (
        schema(Storage::Consume, false),
        schema(Storage::Consume, false),
    );
    (a.delivery_log, b.delivery_log) = (log("a"), log("b"));
    let mut plan = plan_postgres(&a, &PgCatalog::default());
    let first = plan.steps.len();
    let b_plan = plan_postgres(&b, &PgCatalog::default());
    let b_only = (b_plan.steps.iter())
        .filter(|s| !plan.steps.contains(s))
        .count();
    assert!(b_only > 0 && b_only < b_plan.steps.len(), "{b_plan:?}");
    plan.extend(b_plan);
    assert_eq!(plan.steps.len(), first + b_only);
    let creates_table = |s: &&Step| s.summary.starts_with("create table app.outbox");
    assert_eq!(plan.steps.iter().filter(creates_table).count(), 1);
}
