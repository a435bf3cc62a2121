//! `doctor`'s look at the claim function (`store::postgres::sql::claim_function`):
//! there, outboxctl's as written and executable, or the relay parses and plans the claim on every
//! pass (a warning, not a fault: the relay then sends the claim's SQL).

use super::{DoctorReport, Level};
use crate::config::Target;
use crate::db;
use crate::store::backend;
use crate::store::postgres::diagnostics::{FunctionState, claim_function_state};
use crate::store::postgres::sql::claim_function;

/// The check's name.
pub const NAME: &str = "claim function";

/// The claim function's check, when the relay's claim goes through one.
pub async fn check(
    pg: &backend::Postgres<'_>,
    conn: &mut sqlx::PgConnection,
    report: &mut DoctorReport,
) {
    let opts = pg.store_options();
    // none when the table's name leaves no room for the function's, which migrate refuses
    // already for strict order's indexes (longer suffixes)
    let Some(f) = claim_function(&opts) else {
        return;
    };
    let registry = matches!(
        &pg.config.outbox.target,
        Target::Postgres {
            registry: Some(_),
            ..
        }
    );
    if opts.prepared_statements && registry {
        // the relay's claim then reads the route pauses: another text, sent named
        let detail = "with prepared_statements and the registry the claim is a named statement that reads the route pauses: planned once per connection, no function needed";
        return report.add(NAME, Level::Ok, detail);
    }
    let name = f.name.plain();
    let (level, detail) = match claim_function_state(conn, &f).await {
        Ok(FunctionState::Trusted { executable: true }) => (
            Level::Ok,
            format!("the claim is a call of {name}: planned once per connection"),
        ),
        Ok(FunctionState::Trusted { executable: false }) => (
            Level::Warn,
            format!(
                "this role may not execute {name}: the claim is planned on every pass; GRANT EXECUTE ON FUNCTION {} TO the relay's role",
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
                "no {name} for this version and these settings: the claim is planned on every pass; run outboxctl migrate"
            ),
        ),
        Err(e) => (
            Level::Warn,
            format!("cannot read the claim function: {}", db::pg_message(&e)),
        ),
    };
    report.add(NAME, level, detail);
}
