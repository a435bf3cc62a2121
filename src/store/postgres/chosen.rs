//! The rows a `requeue` or `discard` acts on, chosen by id (and by the error that chose each),
//! and the statements that change them; `discard` with a copy kept before it commits.

use sqlx::Row;
use sqlx::postgres::PgConnection;
use uuid::Uuid;

use super::diagnostics::{READ_LOCK_WAIT, row_lock_busy};
use crate::Error;
use crate::store::ops::{Chosen, Keep};
use crate::target::QualifiedName;

/// The rows a requeue or discard acts on (`$1` ids, `$2` whether its error chose each, `$3`
/// that error), and the condition on the table's row `t`: still failed, and still with that
/// error when it chose the row.
pub const CHOSEN: &str = "unnest($1::uuid[], $2::bool[], $3::text[]) AS c(id, by_error, error)";
pub const CHOSEN_ROW: &str = "t.id = c.id AND t.status = 'failed' AND (NOT c.by_error OR t.last_error IS NOT DISTINCT FROM c.error)";

/// [`CHOSEN`]'s three arrays for `rows`.
fn binds(rows: &[Chosen]) -> (Vec<Uuid>, Vec<bool>, Vec<Option<&str>>) {
    let ids = rows.iter().map(|r| r.id).collect();
    let by_error = rows.iter().map(|r| r.error.is_some()).collect();
    let errors = (rows.iter())
        .map(|r| r.error.as_ref().and_then(Option::as_deref))
        .collect();
    (ids, by_error, errors)
}

/// Runs a requeue or discard (`sql`, over [`CHOSEN`]) for `rows` on `table`: the ids changed.
/// A row another transaction holds is waited for [`READ_LOCK_WAIT`] at most (then a busy lock,
/// exit 4, naming who holds row locks on the table), as the table's own lock is.
pub async fn changed(
    conn: &mut PgConnection,
    table: &QualifiedName,
    sql: &str,
    rows: &[Chosen],
    what: &'static str,
) -> Result<Vec<Uuid>, Error> {
    let (ids, by_error, errors) = binds(rows);
    let mut tx = bounded(conn, what).await?;
    let changed = (crate::db::pg::query_scalar(sql)
        .bind(ids)
        .bind(by_error)
        .bind(errors))
    .fetch_all(&mut tx)
    .await;
    match changed {
        Ok(ids) => {
            tx.commit().await.map_err(|e| Error::pg("committing", e))?;
            Ok(ids)
        }
        Err(e) => {
            tx.rollback().await.map_err(|e| Error::pg(what, e))?;
            Err(busy_or(e, conn, table, what).await)
        }
    }
}

/// A transaction whose lock waits end after [`READ_LOCK_WAIT`].
pub async fn bounded<'c>(
    conn: &'c mut PgConnection,
    what: &'static str,
) -> Result<sqlx::Transaction<'c, sqlx::Postgres>, Error> {
    let failed = |e| Error::pg(what, e);
    let mut tx = sqlx::Connection::begin(conn).await.map_err(failed)?;
    let limit = crate::schema::postgres::set_local_lock_timeout(&mut tx, READ_LOCK_WAIT);
    limit.await.map_err(failed)?;
    Ok(tx)
}

/// A [`bounded`] transaction's failed write (rolled back first): a lock it waited too long
/// for named ([`row_lock_busy`]), any other failure as it is.
pub async fn busy_or(
    e: sqlx::Error,
    conn: &mut PgConnection,
    table: &QualifiedName,
    what: &'static str,
) -> Error {
    match crate::db::retry::is_lock_busy(&e) {
        true => row_lock_busy(conn, table).await,
        false => Error::pg(what, e),
    }
}

/// Deletes the failed rows of `rows` from `table`; with `keep`, in a transaction that commits
/// once `keep` has each row whole (`to_jsonb`'s text: every digit of a number kept), so a copy
/// that fails deletes nothing.
pub async fn discard(
    conn: &mut PgConnection,
    table: &QualifiedName,
    rows: &[Chosen],
    keep: Option<&mut Keep<'_>>,
) -> Result<Vec<Uuid>, Error> {
    let delete = format!("DELETE FROM {table} t USING {CHOSEN} WHERE {CHOSEN_ROW} RETURNING t.id");
    let Some(keep) = keep else {
        return changed(conn, table, &delete, rows, "discarding").await;
    };
    let sql = format!("{delete}, to_jsonb(t)::text AS row");
    let (ids, by_error, errors) = binds(rows);
    let mut tx = bounded(conn, "discarding").await?;
    let deleted = (crate::db::pg::query(&sql)
        .bind(ids)
        .bind(by_error)
        .bind(errors))
    .fetch_all(&mut tx)
    .await;
    let deleted = match deleted {
        Ok(rows) => rows,
        Err(e) => {
            tx.rollback()
                .await
                .map_err(|e| Error::pg("discarding", e))?;
            return Err(busy_or(e, conn, table, "discarding").await);
        }
    };
    let failed = |e| Error::pg("discarding", e);
    let mut gone = Vec::with_capacity(deleted.len());
    let mut whole = Vec::with_capacity(deleted.len());
    for r in &deleted {
        gone.push(r.try_get("id").map_err(failed)?);
        whole.push(r.try_get("row").map_err(failed)?);
    }
    keep(&whole)?;
    tx.commit().await.map_err(|e| Error::pg("committing", e))?;
    Ok(gone)
}
