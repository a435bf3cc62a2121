//! `doctor`'s check of the HLC checkpoint table's key. Staging (forze's flush and `emit`)
//! advances the node's mark with `INSERT … ON CONFLICT (node_key)`, which needs a unique index
//! on `node_key` alone: without one every staging that advances the mark fails.

use super::{DoctorReport, Level};
use crate::Error;
use crate::schema::plan::IndexFacts;
use crate::target::QualifiedName;

/// Whether `i` is the checkpoint's key: unique on `node_key` alone, over every row.
fn is_node_key(i: &IndexFacts) -> bool {
    i.is_arbiter_for(&["node_key"])
}

/// Adds the `hlc checkpoint key` check of `checkpoint`; nothing when the table is missing
/// (the `hlc mark` check fails for that).
pub(super) async fn key_check(
    conn: &mut sqlx::PgConnection,
    checkpoint: &QualifiedName,
    report: &mut DoctorReport,
) -> Result<(), Error> {
    let name = checkpoint.plain();
    let facts = crate::schema::postgres::table_facts(conn, checkpoint)
        .await
        .map_err(|e| Error::pg(format!("reading {name}"), e))?;
    let Some(facts) = facts else {
        return Ok(());
    };
    if facts.indexes.iter().any(is_node_key) {
        report.add(
            "hlc checkpoint key",
            Level::Ok,
            format!("{name} has its PRIMARY KEY (node_key)"),
        );
    } else {
        report.add(
            "hlc checkpoint key",
            Level::Fail,
            format!(
                "{name} has no unique key on node_key alone: every staging that advances the HLC mark (emit's, forze's flush) fails at its ON CONFLICT (node_key); add PRIMARY KEY (node_key) as the specification has it"
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(columns: &[&str], unique: bool, using: &str) -> IndexFacts {
        IndexFacts {
            name: "i".into(),
            using: using.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            unique,
            primary: false,
            valid: true,
        }
    }

    #[test]
    fn only_a_unique_index_on_node_key_alone_over_every_row_is_the_key() {
        assert!(is_node_key(&index(&["node_key"], true, "btree (node_key)")));
        assert!(!is_node_key(&index(
            &["node_key"],
            false,
            "btree (node_key)"
        )));
        let pair = index(&["node_key", "hlc"], true, "btree (node_key, hlc)");
        assert!(!is_node_key(&pair));
        let partial = index(&["node_key"], true, "btree (node_key) WHERE (hlc > 0)");
        assert!(!is_node_key(&partial));
    }
}
