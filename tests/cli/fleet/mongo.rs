//! The relay registry and route pauses on MongoDB: refused before `migrate`, then a pause that
//! holds a relay, resumed.

use super::*;
use crate::common::MongoDb;

#[tokio::test]
async fn registry_and_pause_on_mongodb() {
    let test = test_name!();
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    // before migrate: the registry's commands say so (they said nothing was paused, and a
    // pause made its collection in whatever database the URL named)
    for args in [
        &["route", "list"][..],
        &["route", "pause", "orders", "--reason", "early"],
        &["inspect", "relays"],
    ] {
        let r = ob(args).mongo(&coll).code(ERROR);
        assert!(
            r.stderr.contains("does not exist: run `outboxctl migrate`"),
            "{r:?}"
        );
    }
    // and the outbox's (a mistyped collection): staging made it without its unique index,
    // reading and relaying found nothing, and the relay's heartbeat made the registry
    for args in [
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "t",
            "--payload",
            "{}",
        ][..],
        &["inspect", "pending"],
        &["requeue", "--all", "--route", "orders", "--dry-run"],
        &["relay", "--once", "--route", "orders"],
    ] {
        let r = ob(args).mongo(&coll).code(ERROR);
        let missing =
            format!("outbox collection {coll} does not exist; create it with `outboxctl migrate`");
        assert!(r.stderr.contains(&missing), "{args:?}: {r:?}");
    }
    let made = db
        .client
        .database(&db.name)
        .list_collection_names()
        .await
        .unwrap();
    assert!(made.is_empty(), "nothing made: {made:?}");
    let r = ob(["migrate", "--yes"]).mongo(&coll).code(OK);
    assert!(
        r.stdout
            .contains(&format!("create collection {}.outbox_relays", db.name)),
        "{r:?}"
    );
    // the pauses' collection dropped by hand: a pause is refused as before migrate (it made
    // the collection again, without its index)
    let pauses = db
        .db()
        .collection::<mongodb::bson::Document>("outbox_relays_pauses");
    pauses.drop().await.unwrap();
    let r = ob(["route", "pause", "orders", "--reason", "x"])
        .mongo(&coll)
        .code(ERROR);
    assert!(
        r.stderr.contains("outbox_relays_pauses does not exist"),
        "{r:?}"
    );
    ob(["migrate", "--yes"]).mongo(&coll).code(OK);
    emit_events("orders", 5, "{}").mongo(&coll).code(OK);
    // a reason that starts with `$` is stored as written, not read as a field path
    let reason = "$5 refunds charged twice: mongo pause";
    ob(["route", "pause", "orders", "--reason", reason])
        .mongo(&coll)
        .code(OK);
    let to = out_file(test);
    let dest = format!("file:{}", to.display());
    let r = ob(["relay", "--once", "--route", "orders", "--to", &dest])
        .mongo(&coll)
        .code(OK);
    assert!(r.stderr.contains(reason), "{r:?}");
    assert_eq!(line_count(&to), 0);
    let list = ob(["route", "list", "--format", "json"])
        .mongo(&coll)
        .code(OK)
        .json();
    assert_eq!(list[0]["state"], "paused", "{list}");
    assert_eq!(list[0]["reason"], reason, "{list}");
    // two pauses made at once can both be in force: one resume ends them both
    let pauses = db
        .db()
        .collection::<mongodb::bson::Document>("outbox_relays_pauses");
    pauses
        .insert_one(mongodb::bson::doc! {
            "route": "orders", "tenant_id": mongodb::bson::Bson::Null, "active": true,
            "reason": "a second pause", "paused_by": "x", "paused_at": mongodb::bson::DateTime::now(),
        })
        .await
        .unwrap();
    ob(["route", "resume", "orders"]).mongo(&coll).code(OK);
    let list = ob(["route", "list", "--format", "json"])
        .mongo(&coll)
        .code(OK)
        .json();
    assert_ne!(list[0]["state"], "paused", "{list}");
    ob(["relay", "--once", "--route", "orders", "--to", &dest])
        .mongo(&coll)
        .code(OK);
    assert_eq!(line_count(&to), 5);
    let relays = ob(["inspect", "relays", "--format", "json"])
        .mongo(&coll)
        .code(OK)
        .json();
    let relays = relays.as_array().unwrap();
    assert_eq!(relays.len(), 2, "{relays:?}");
    assert!(
        relays
            .iter()
            .all(|r| r["state"] == "stopped" && r["pid"].as_u64().unwrap() > 0)
    );
    assert!(
        relays
            .iter()
            .any(|r| r["published"] == 5 && !r["last_pass_at"].is_null())
    );
    let history = ob(["route", "list", "--history", "--format", "json"])
        .mongo(&coll)
        .code(OK)
        .json();
    assert_eq!(
        history.as_array().unwrap().len(),
        4,
        "two pauses, each resumed: {history}"
    );
}
