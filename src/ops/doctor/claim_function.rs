//! `doctor`'s look at the functions of the pass (`store::postgres::sql::functions`: the claim's
//! and, under retain, the mark's): each there, outboxctl's as written and executable, or the
//! relay parses and plans its statement on every pass (a warning, not a fault: the relay then
//! sends the statement's SQL).

use super::{DoctorReport, Level};
use crate::config::Target;
use crate::db;
use crate::store::backend;
use crate::store::postgres::PgStoreOptions;
use crate::store::postgres::diagnostics::{FunctionState, function_state};
use crate::store::postgres::sql::{FunctionKind, PassFunction, functions};

/// One check per function the relay's statements go through (named `claim function` and
/// `mark function`); none when the table's name leaves no room for a function's, which
/// migrate refuses already for strict order's indexes (longer suffixes), or for a table per
/// tenant.
pub async fn check(
    pg: &backend::Postgres<'_>,
    conn: &mut sqlx::PgConnection,
    report: &mut DoctorReport,
) {
    let opts = pg.store_options();
    for f in functions(&opts) {
        check_one(pg, &opts, f, conn, report).await;
    }
}

async fn check_one(
    pg: &backend::Postgres<'_>,
    opts: &PgStoreOptions,
    f: PassFunction,
    conn: &mut sqlx::PgConnection,
    report: &mut DoctorReport,
) {
    let name_of_check = f.kind.as_str();
    let registry = matches!(
        &pg.config.outbox.target,
        Target::Postgres {
            registry: Some(_),
            ..
        }
    );
    if f.kind == FunctionKind::Claim && opts.prepared_statements && registry {
        // the relay's claim then reads the route pauses: another text, sent named
        let detail = "with prepared_statements and the registry the claim is a named statement that reads the route pauses: planned once per connection, no function needed";
        return report.add(name_of_check, Level::Ok, detail);
    }
    let name = f.name.plain();
    let statement = f.kind.statement();
    let (level, detail) = match function_state(conn, &f).await {
        Ok(FunctionState::Trusted { executable: true }) => (
            Level::Ok,
            format!("the {statement} is a call of {name}: planned once per connection"),
        ),
        Ok(FunctionState::Trusted { executable: false }) => (
            Level::Warn,
            format!(
                "this role may not execute {name}: the {statement} is planned on every pass; GRANT EXECUTE ON FUNCTION {} TO the relay's role",
                f.name
            ),
        ),
        Ok(FunctionState::Untrusted) => (
            Level::Warn,
            format!(
                "{name} is not outboxctl's as written (its body, owner or settings differ), so the relay does not call it: run outboxctl migrate as the table's owner to make it again"
            ),
        ),
        Ok(FunctionState::Missing) => (
            Level::Warn,
            format!(
                "no {name} for this version and these settings: the {statement} is planned on every pass; run outboxctl migrate as the table's owner or a superuser (the relay trusts no function another role made)"
            ),
        ),
        Err(e) => (
            Level::Warn,
            format!("cannot read the {name_of_check}: {}", db::pg_message(&e)),
        ),
    };
    report.add(name_of_check, level, detail);
}
