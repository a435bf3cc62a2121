//! Staging on MongoDB: documents written as forze writes them; with HLC ordering and a
//! checkpoint, the rows and a `$max` upsert of the mark commit in one transaction (retried on
//! a write conflict); duplicates of a staged `(outbox_route, event_id)` are reported, not errors.

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use mongodb::Collection;
use mongodb::bson::{Bson, Document, doc};
use uuid::Uuid;

use super::bson_date;
use super::ops::{MongoOps, bad_mark};
use crate::Error;
use crate::hlc::{Hlc, HlcTimestamp};
use crate::store::ops::{NewEvent, Staged};

/// Duplicate key (a staged event id already in the outbox).
const DUPLICATE_KEY: i32 = 11000;

/// What needs a transaction when `emit` advances an HLC checkpoint.
const STAGING_WITH_A_CHECKPOINT: &str = "staging with an HLC checkpoint";

impl MongoOps {
    /// Stages events as forze does (see [`OpsStore::stage`]).
    pub(super) async fn stage_events(
        &self,
        events: &[NewEvent],
        node_key: &str,
    ) -> Result<Vec<Staged>, Error> {
        let now = Utc::now();
        // Without HLC ordering there is nothing to keep atomic with the rows.
        if !self.opts.hlc_ordering {
            let docs = events
                .iter()
                .map(|e| self.document(e, now, None))
                .collect::<Result<Vec<_>, _>>()?;
            let dup = insert_docs(&self.coll, docs, None)
                .await
                .map_err(|e| Error::mongo("staging", e))?;
            return Ok(staged(events, &dup, &[]));
        }
        if self.checkpoint.is_some() && !super::diagnostics::has_transactions(&self.client).await? {
            return Err(super::diagnostics::standalone(STAGING_WITH_A_CHECKPOINT));
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut session = self
                .client
                .start_session()
                .await
                .map_err(|e| Error::mongo("starting a session", e))?;
            let result: Result<(Vec<bool>, Vec<HlcTimestamp>), mongodb::error::Error> = async {
                if self.checkpoint.is_some() {
                    session.start_transaction().await?;
                }
                let mut clock = Hlc::default();
                if let Some(mark) = self.load_mark(Some(&mut session)).await? {
                    clock.resume(mark);
                }
                let wall = now.timestamp_millis().max(0) as u64;
                let stamps: Vec<HlcTimestamp> = (events.iter())
                    .map(|_| clock.now(wall))
                    .collect::<Result<_, _>>()
                    .map_err(|e| mongodb::error::Error::custom(e.to_string()))?;
                let docs = events
                    .iter()
                    .zip(&stamps)
                    .map(|(e, s)| self.document(e, now, Some(*s)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| mongodb::error::Error::custom(e.to_string()))?;
                // Inside a transaction a duplicate-key error aborts it (and the checkpoint
                // with it): find the duplicates first, in the transaction, and insert the rest.
                let dup = if self.checkpoint.is_some() {
                    insert_new_docs(&self.coll, docs, &mut session).await?
                } else {
                    // the driver's own error: its kind (a lost connection) and labels (a
                    // transient transaction error, tried again) kept
                    insert_docs(&self.coll, docs, Some(&mut session)).await?
                };
                if let (Some(cp), Some(max)) = (&self.checkpoint, stamps.iter().max()) {
                    let coll = self
                        .client
                        .database(&cp.db)
                        .collection::<Document>(&cp.collection);
                    coll.update_one(
                        doc! { "_id": node_key },
                        doc! { "$max": { "hlc": max.pack() } },
                    )
                    .upsert(true)
                    .session(&mut session)
                    .await?;
                    commit(&mut session).await?;
                }
                Ok((dup, stamps))
            }
            .await;
            match result {
                Ok((dup, stamps)) => return Ok(staged(events, &dup, &stamps)),
                Err(e)
                    if attempt < 10
                        && e.contains_label(mongodb::error::TRANSIENT_TRANSACTION_ERROR) =>
                {
                    let _ = session.abort_transaction().await;
                    continue;
                }
                Err(e)
                    if e.to_string()
                        .contains("Transaction numbers are only allowed") =>
                {
                    return Err(super::diagnostics::standalone(STAGING_WITH_A_CHECKPOINT));
                }
                Err(e) => {
                    // aborted here, not left to the session's drop: a process that exits on
                    // the error would leave the transaction open on the server for a minute
                    let _ = session.abort_transaction().await;
                    return Err(Error::mongo("staging", e));
                }
            }
        }
    }

    fn document(
        &self,
        e: &NewEvent,
        now: DateTime<Utc>,
        hlc: Option<HlcTimestamp>,
    ) -> Result<Document, Error> {
        let payload = payload_to_bson(&e.payload)?;
        let opt = |u: Option<Uuid>| u.map_or(Bson::Null, |u| Bson::String(u.to_string()));
        let mut d = doc! {
            "id": e.id.to_string(),
            "outbox_route": &e.route,
            "event_id": e.event_id.to_string(),
            "event_type": &e.event_type,
            "tenant_id": opt(e.tenant_id),
            "execution_id": opt(e.execution_id),
            "correlation_id": opt(e.correlation_id),
            "causation_id": opt(e.causation_id),
            "occurred_at": bson_date(e.occurred_at),
            "payload": payload,
            "status": "pending",
            "created_at": bson_date(now),
            "published_at": Bson::Null,
            "processing_at": Bson::Null,
            "last_error": Bson::Null,
            "attempts": 0,
            "available_at": Bson::Null,
            "ordering_key": e.ordering_key.clone().map_or(Bson::Null, Bson::String),
        };
        if let Some(h) = hlc {
            d.insert("hlc", h.pack());
        }
        if self.opts.propagate_trace {
            d.insert(
                "traceparent",
                e.traceparent.clone().map_or(Bson::Null, Bson::String),
            );
        }
        Ok(d)
    }

    /// The largest mark over every node key.
    pub async fn load_mark(
        &self,
        session: Option<&mut mongodb::ClientSession>,
    ) -> Result<Option<HlcTimestamp>, mongodb::error::Error> {
        let Some(cp) = &self.checkpoint else {
            return Ok(None);
        };
        let coll = self
            .client
            .database(&cp.db)
            .collection::<Document>(&cp.collection);
        let opts = mongodb::options::FindOneOptions::builder()
            .sort(doc! { "hlc": -1 })
            .build();
        let found = match session {
            Some(s) => coll.find_one(doc! {}).with_options(opts).session(s).await?,
            None => coll.find_one(doc! {}).with_options(opts).await?,
        };
        // the greatest by BSON's order: a mark of another type (a double, a string) sorts at
        // or above every 64-bit one, and was read as no mark at all, so stamps went backwards
        match found.as_ref().map(|d| (d.get("_id"), d.get("hlc"))) {
            None | Some((_, None | Some(Bson::Null))) => Ok(None),
            Some((_, Some(Bson::Int64(h)))) => Ok(HlcTimestamp::unpack(*h).ok()),
            Some((id, Some(other))) => Err(mongodb::error::Error::custom(bad_mark(cp, id, other))),
        }
    }
}

/// The first number of the JSON text `json` that BSON cannot hold exactly: an integer outside
/// 64 bits, or a fraction whose nearest double reads back as another value
/// (`0.12345678901234567890`); `1.50` and `1e2` are held exactly enough (their double reads
/// back as the same value).
fn inexact_number(json: &str) -> Option<&str> {
    let b = json.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            let n = &json[start..i];
            let exact = if n.contains(['.', 'e', 'E']) {
                n.parse::<f64>().ok().is_some_and(|f| {
                    f.is_finite()
                        && serde_json::Number::from_f64(f)
                            .is_some_and(|shown| decimal(&shown.to_string()) == decimal(n))
                })
            } else {
                n.parse::<i64>().is_ok()
            };
            if !exact {
                return Some(n);
            }
            continue;
        }
        i += 1;
    }
    None
}

/// A JSON number's value as (negative, significant digits, exponent): `0.d1d2… × 10^exp`,
/// the same for every way of writing one value (`1.50`, `1.5`, `15e-1`).
fn decimal(n: &str) -> (bool, String, i64) {
    let (neg, n) = n.strip_prefix('-').map_or((false, n), |m| (true, m));
    let (mantissa, exp) = n.split_once(['e', 'E']).unwrap_or((n, "0"));
    let exp: i64 = exp.trim_start_matches('+').parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    let exp = exp + int.len() as i64 - lead as i64;
    (neg, significant.to_owned(), exp)
}

/// A payload's JSON text as BSON, refusing numbers BSON cannot hold exactly (send those as
/// strings). Judged on the text: parsed, a number is already an `f64`, rounded.
pub fn payload_to_bson(text: &str) -> Result<Bson, Error> {
    let payload: serde_json::Value =
        serde_json::from_str(text).map_err(|x| Error::data("payload", x))?;
    if let Some(n) = inexact_number(text) {
        return Err(inexact(n));
    }
    json_to_bson(&payload)
}

fn inexact(n: &str) -> Error {
    Error::Data {
        what: format!(
            "payload number {n} cannot be stored exactly in MongoDB (a 64-bit integer or a double); send it as a string"
        ),
        source: None,
    }
}

/// Parsed JSON to BSON, its numbers already judged by their text ([`payload_to_bson`]).
fn json_to_bson(v: &serde_json::Value) -> Result<Bson, Error> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => Bson::Null,
        Value::Bool(b) => Bson::Boolean(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Bson::Int64(i),
            (None, Some(f)) if n.is_f64() => Bson::Double(f),
            // an integer past i64 (the text check refuses it first)
            _ => return Err(inexact(&n.to_string())),
        },
        Value::String(s) => Bson::String(s.clone()),
        Value::Array(a) => Bson::Array(a.iter().map(json_to_bson).collect::<Result<_, _>>()?),
        Value::Object(o) => {
            let mut d = Document::new();
            for (k, v) in o {
                d.insert(k.clone(), json_to_bson(v)?);
            }
            Bson::Document(d)
        }
    })
}

/// Inside a transaction: reads which `(outbox_route, event_id)` pairs exist already (or repeat
/// within the batch), inserts the others, and returns, per document, whether it was a
/// duplicate. A concurrent insert of the same pair is a write conflict, which the caller's
/// transaction retry meets again here as a duplicate.
async fn insert_new_docs(
    coll: &Collection<Document>,
    docs: Vec<Document>,
    session: &mut mongodb::ClientSession,
) -> Result<Vec<bool>, mongodb::error::Error> {
    let key = |d: &Document| {
        (
            d.get_str("outbox_route").unwrap_or_default().to_owned(),
            d.get_str("event_id").unwrap_or_default().to_owned(),
        )
    };
    let pairs: Vec<Bson> = docs
        .iter()
        .map(|d| {
            let (route, event) = key(d);
            Bson::Document(doc! { "outbox_route": route, "event_id": event })
        })
        .collect();
    let mut seen: std::collections::HashSet<(String, String)> = coll
        .find(doc! { "$or": pairs })
        .projection(doc! { "outbox_route": 1, "event_id": 1 })
        .session(&mut *session)
        .await?
        .stream(&mut *session)
        .try_collect::<Vec<Document>>()
        .await?
        .iter()
        .map(key)
        .collect();
    let mut dup = Vec::with_capacity(docs.len());
    let mut fresh = Vec::new();
    for d in docs {
        let new = seen.insert(key(&d));
        dup.push(!new);
        if new {
            fresh.push(d);
        }
    }
    if !fresh.is_empty() {
        coll.insert_many(fresh).session(&mut *session).await?;
    }
    Ok(dup)
}

/// Inserts unordered; returns, per document, whether it was a duplicate.
async fn insert_docs(
    coll: &Collection<Document>,
    docs: Vec<Document>,
    session: Option<&mut mongodb::ClientSession>,
) -> mongodb::error::Result<Vec<bool>> {
    let n = docs.len();
    let result = match session {
        Some(s) => coll.insert_many(docs).ordered(false).session(s).await,
        None => coll.insert_many(docs).ordered(false).await,
    };
    let mut dup = vec![false; n];
    match result {
        Ok(_) => Ok(dup),
        Err(e) => match *e.kind {
            // only duplicates: a write concern error with them still fails the staging
            mongodb::error::ErrorKind::InsertMany(ref f)
                if f.write_concern_error.is_none()
                    && f.write_errors
                        .as_ref()
                        .is_some_and(|w| w.iter().all(|x| x.code == DUPLICATE_KEY)) =>
            {
                for w in f.write_errors.as_ref().expect("checked") {
                    dup[w.index] = true;
                }
                Ok(dup)
            }
            _ => Err(e),
        },
    }
}

fn staged(events: &[NewEvent], dup: &[bool], stamps: &[HlcTimestamp]) -> Vec<Staged> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| Staged::new(e.id, e.event_id, !dup[i], stamps.get(i).map(|s| s.encode())))
        .collect()
}

/// Commits, trying the commit again (only the commit) while its result is unknown: the
/// transaction may have committed already, so running it again would find every event it
/// inserted and report them as duplicates, with stamps other than those stored.
async fn commit(session: &mut mongodb::ClientSession) -> mongodb::error::Result<()> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match session.commit_transaction().await {
            Err(e)
                if attempt < 10
                    && e.contains_label(mongodb::error::UNKNOWN_TRANSACTION_COMMIT_RESULT) =>
            {
                continue;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_bson_cannot_hold_exactly_are_found_by_their_text() {
        for exact in [
            r#"{"a": 1, "b": -2.5, "c": 1.50, "d": 1e2, "e": 0.1, "f": 9223372036854775807}"#,
            r#"{"s": "0.12345678901234567890 and 123456789012345678901", "t": "\\\" 1"}"#,
            r#"[0, -0, 0.0, 1.7976931348623157e308, 5e-324, 123456789012345678]"#,
        ] {
            assert_eq!(inexact_number(exact), None, "{exact}");
        }
        for (json, first) in [
            (r#"{"p": 0.12345678901234567890}"#, "0.12345678901234567890"),
            (r#"{"big": 123456789012345678901}"#, "123456789012345678901"),
            (r#"[18446744073709551615]"#, "18446744073709551615"),
            (r#"{"x": "9.99999999999999999999", "y": 1e400}"#, "1e400"),
        ] {
            assert_eq!(inexact_number(json), Some(first), "{json}");
        }
        assert_eq!(decimal("1.50"), decimal("15e-1"));
        assert_eq!(decimal("100.0"), decimal("1e2"));
        assert_ne!(decimal("-1"), decimal("1"));
    }
}
