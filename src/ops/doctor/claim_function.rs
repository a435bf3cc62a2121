//! `doctor`'s look at the functions of the pass (`store::postgres::sql::functions`: the claim's
//! and, under retain, the mark's): each there, outboxctl's as written and executable, or the
//! relay parses and plans its statement on every pass (a warning, not a fault: the relay then
//! sends the statement's SQL). With `prepared_statements` the relay calls none: each check is
//! then fine whatever the function's state. Last, the functions outboxctl made for the table in
//! another version or with other settings, which `migrate --prune-functions` drops.

use super::{DoctorReport, Level};
use crate::db;
use crate::store::backend;
use crate::store::postgres::diagnostics::{
    FunctionState, function_state, other_pass_functions, others_named,
};
use crate::store::postgres::sql::{PassFunction, functions, no_room_for_functions};

/// One check per function the relay's statements go through (named `claim function` and
/// `mark function`), then one for the functions of other versions or settings (`old
/// functions`); none for a table per tenant, and a warning when the table's name leaves no
/// room for the claim function's.
pub async fn check(
    pg: &backend::Postgres<'_>,
    conn: &mut sqlx::PgConnection,
    report: &mut DoctorReport,
) {
    let opts = pg.store_options();
    if let Some(why) = no_room_for_functions(&opts) {
        report.add("claim function", Level::Warn, why);
    }
    let ours = functions(&opts);
    if ours.is_empty() {
        return;
    }
    for f in ours {
        check_one(opts.prepared_statements, f, conn, report).await;
    }
    let (level, detail) = match other_pass_functions(conn, &opts).await {
        Ok(others) => match others_named(&others) {
            None => (
                Level::Ok,
                "no function of the pass of another version or other settings".to_owned(),
            ),
            Some(named) => (
                Level::Warn,
                format!(
                    "{named}; once no relay calls them, run outboxctl migrate --prune-functions"
                ),
            ),
        },
        Err(e) => (
            Level::Warn,
            format!(
                "cannot list the functions of the pass: {}",
                db::pg_message(&e)
            ),
        ),
    };
    report.add("old functions", level, detail);
}

async fn check_one(
    prepared_statements: bool,
    f: PassFunction,
    conn: &mut sqlx::PgConnection,
    report: &mut DoctorReport,
) {
    let name_of_check = f.kind.as_str();
    let statement = f.kind.statement();
    if prepared_statements {
        // named statements run faster sent as they are than through a function (`calls_functions`)
        let detail = format!(
            "with prepared_statements the {statement} is a named statement: planned once per connection, no function needed"
        );
        return report.add(name_of_check, Level::Ok, detail);
    }
    let name = f.name.plain();
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
