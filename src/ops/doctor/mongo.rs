//! `doctor` on MongoDB: a replica set for transactions, the claim's indexes (the
//! specification's, the one in claim order, the claim token's, strict order's key index), the
//! event key staging deduplicates by, and the claim's plan, then each outbox's rows.

use super::{DoctorOptions, DoctorReport, Level, of_tenant, row_checks};
use crate::Error;
use crate::schema::desired::CLAIM_INDEX_COLUMNS;
use crate::store::backend;

/// MongoDB: the claim index exists and the claim's plan uses it; a replica set for transactions.
pub(super) async fn mongo_checks(
    mongo: &backend::Mongo<'_>,
    options: DoctorOptions,
    report: &mut DoctorReport,
) -> Result<(), Error> {
    use crate::store::mongo::diagnostics as diag;
    let (config, collection) = (mongo.config, mongo.collection);
    let client = mongo.connect().await?;
    if diag::has_transactions(&client).await? {
        report.add(
            "transactions",
            Level::Ok,
            "a replica set: transactions (and the HLC checkpoint) work",
        );
    } else {
        report.add(
            "transactions",
            Level::Warn,
            "a standalone server: no transactions, so emit with an HLC checkpoint cannot run",
        );
    }
    // a collection that is not there: said as such, once (its indexes read as missing, its
    // claim plan as fine, and nothing said why)
    let found = crate::db::mongo_collection_exists(&client, &collection.db, &collection.collection);
    if !found
        .await
        .map_err(|e| Error::mongo("looking for the outbox collection", e))?
    {
        report.add(
            "outbox collection",
            Level::Fail,
            format!("{collection} does not exist; run outboxctl migrate"),
        );
        return Ok(());
    }
    let indexes = diag::indexes_of(&client, collection).await;
    let has_claim = indexes.iter().any(|i| i.on(CLAIM_INDEX_COLUMNS));
    report.index(
        "claim index",
        has_claim,
        format!(
            "{collection} has the claim index {{ {} }}",
            CLAIM_INDEX_COLUMNS.join(", ")
        ),
        format!(
            "{collection} has no claim index: every claim scans the collection; run outboxctl migrate"
        ),
    );
    // each claim reads its documents back by their token
    let has_token = indexes
        .iter()
        .any(|i| i.keys.first().is_some_and(|(k, _)| k == "claim_token"));
    report.index(
        "claim token index",
        has_token,
        format!("{collection} has an index on claim_token"),
        format!(
            "{collection} has no index on claim_token: each claim reads its documents back by scanning the collection; run outboxctl migrate"
        ),
    );
    // staging (forze's, emit's) skips a duplicate event by this key: without it a duplicate is
    // staged again and published twice
    let event_key = |i: &&crate::schema::plan::MongoIndexFacts| {
        let mut keys: Vec<&str> = i.keys.iter().map(|(k, _)| k.as_str()).collect();
        keys.sort();
        i.unique && i.partial.is_none() && keys == ["event_id", "outbox_route"]
    };
    report.index(
        "event key",
        indexes.iter().any(|i| event_key(&i)),
        format!("{collection} has its unique index {{ outbox_route, event_id }}"),
        format!(
            "{collection} has no unique index {{ outbox_route, event_id }} over every document: an event staged twice is stored and published twice; run outboxctl migrate"
        ),
    );
    // the claim reads pending documents in its order through it and stops at its batch
    let order =
        crate::schema::render::mongo_claim_order_indexes(config.outbox.hlc_ordering).remove(0);
    let order_keys: Vec<&str> = order.keys.iter().map(|(k, _)| k.as_str()).collect();
    let shown = order_keys.join(", ");
    if indexes.iter().any(|i| i.on(&order_keys)) {
        report.add(
            "claim order index",
            Level::Ok,
            format!("{collection} has the claim order index {{ {shown} }}"),
        );
    } else {
        report.add(
            "claim order index",
            Level::Warn,
            format!(
                "{collection} has no index {{ {shown} }}: each claim sorts every pending document of its route; run outboxctl migrate"
            ),
        );
    }
    if config.relay.key_order == crate::model::KeyOrder::Strict {
        // strict order's check reads each key through it, and cannot run without it
        use crate::store::mongo::strict;
        let hlc = config.outbox.hlc_ordering;
        match strict::pick_key_index(&indexes, hlc) {
            Some(index) => match index.cost(collection, hlc) {
                None => report.add(
                    "key order index",
                    Level::Ok,
                    format!("{collection} has the key order index {}", index.name()),
                ),
                Some(cost) => report.add("key order index", Level::Warn, cost),
            },
            None => report.add(
                "key order index",
                Level::Fail,
                strict::missing_key_index(collection, hlc),
            ),
        }
    }
    let plan = diag::claim_scans_collection(&client, collection, config.outbox.hlc_ordering).await;
    match plan {
        Ok(true) => report.add(
            "claim plan",
            Level::Fail,
            format!("the claim on {collection} scans the collection"),
        ),
        Ok(false) => report.add(
            "claim plan",
            Level::Ok,
            format!("the claim on {collection} reads through indexes"),
        ),
        Err(e) => report.add("claim plan", Level::Fail, e.to_string()),
    }
    let mut outboxes = mongo.outboxes_on(client, None);
    for i in 0..outboxes.len() {
        let tenant = outboxes.target(i).tenant();
        let mut ops = outboxes.open(i).await?;
        let name = of_tenant(&collection.to_string(), tenant);
        // the node's HLC mark once, with the first
        let limit = options.max_pending_age;
        row_checks(&mut ops, &name, tenant, limit, i == 0, report).await?;
    }
    Ok(())
}
