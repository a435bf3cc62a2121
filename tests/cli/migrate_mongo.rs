//! `migrate` on a real MongoDB replica set: the collection and the recommended indexes.

use futures_util::TryStreamExt;
use mongodb::IndexModel;
use mongodb::bson::{Bson, Document};

use crate::common::{CHECK_FAILED, ERROR, MongoDb, OK, ob};

fn migrate(db: &MongoDb, extra: &[&str]) -> crate::common::Run {
    ob(["migrate"])
        .mongo(&format!("{}.outbox", db.name))
        .args(extra)
        .run()
}

/// (keys as "k:1,…", unique, sparse) of every index, sorted.
async fn indexes(db: &MongoDb) -> Vec<(String, bool, bool)> {
    let models: Vec<IndexModel> = db
        .db()
        .collection::<Document>("outbox")
        .list_indexes()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut out: Vec<(String, bool, bool)> = models
        .into_iter()
        .map(|m| {
            let keys = m
                .keys
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k}:{}",
                        match v {
                            Bson::Int32(i) => i64::from(*i),
                            Bson::Int64(i) => *i,
                            Bson::Double(d) => *d as i64,
                            _ => 0,
                        }
                    )
                })
                .collect::<Vec<_>>()
                .join(",");
            let o = m.options.unwrap_or_default();
            (keys, o.unique.unwrap_or(false), o.sparse.unwrap_or(false))
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn fresh_migrate_creates_the_recommended_indexes_and_is_idempotent() {
    let db = MongoDb::new(test_name!()).await;
    let r = migrate(&db, &["--check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let r = migrate(&db, &["--dry-run"]);
    assert_eq!(r.code, OK, "{r:?}");
    // a script mongosh runs: comments as its own, each statement a line of its own
    assert!(
        (r.stdout.lines()).all(|l| l.is_empty()
            || l.starts_with("// ")
            || l.starts_with("db.")
            || l.starts_with("db = ")),
        "{r:?}"
    );
    // the outbox's database selected before its statements (they went to the shell's own)
    let select = format!("db = db.getSiblingDB(\"{}\");", db.name);
    let (at, first) = (r.stdout.find(&select), r.stdout.find("db.createCollection"));
    assert!(at.is_some() && at < first, "{r:?}");
    assert!(
        r.stdout
            .contains("db.outbox.createIndex({ claim_token: 1 }, { sparse: true })"),
        "{r:?}"
    );
    let names = db.db().list_collection_names().await.unwrap();
    assert!(names.is_empty(), "dry run created {names:?}");

    let r = migrate(&db, &["--hlc-ordering"]);
    assert_eq!(r.code, OK, "{r:?}");
    let s = |k: &str, u: bool, sp: bool| (k.to_owned(), u, sp);
    assert_eq!(
        indexes(&db).await,
        vec![
            s("_id:1", false, false),
            s("claim_token:1", false, true),
            s("id:1", true, false),
            s("outbox_route:1,event_id:1", true, false),
            s(
                "outbox_route:1,status:1,available_at:1,created_at:1",
                false,
                false
            ),
            s(
                "outbox_route:1,status:1,available_at:1,hlc:1,created_at:1,id:1",
                false,
                false
            ),
            s(
                "outbox_route:1,status:1,hlc:1,created_at:1,id:1",
                false,
                false
            ),
            s("outbox_route:1,status:1,processing_at:1", false, false),
        ]
    );
    let r = migrate(&db, &["--hlc-ordering"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        !r.stdout.contains("applied") && r.stderr.contains("up to date"),
        "{r:?}"
    );
    assert_eq!(migrate(&db, &["--check", "--hlc-ordering"]).code, OK);
    // PostgreSQL's flag is said to do nothing here, not silently ignored
    let r = migrate(&db, &["--hlc-ordering", "--prune-functions", "--yes"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains(
            "warning: MongoDB has no functions of the pass: --prune-functions drops nothing"
        ),
        "{r:?}"
    );
}

#[tokio::test]
async fn an_index_with_other_options_is_reported_not_changed() {
    let db = MongoDb::new(test_name!()).await;
    let model = IndexModel::builder()
        .keys(mongodb::bson::doc! { "claim_token": 1 })
        .build();
    db.db()
        .collection::<Document>("outbox")
        .create_index(model)
        .await
        .unwrap();
    let r = migrate(&db, &[]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("sparse: false")
            && r.stdout.contains("expected unique: false, sparse: true"),
        "{r:?}"
    );
    assert!(
        indexes(&db)
            .await
            .contains(&("claim_token:1".to_owned(), false, false))
    );
}

#[test]
fn consume_storage_on_mongo_is_refused_before_connecting() {
    let r = ob([
        "migrate",
        "--database-url",
        "mongodb://127.0.0.1:1/",
        "--storage",
        "consume",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("PostgreSQL-only"), "{r:?}");
}
