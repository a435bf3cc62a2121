//! Opening connections (with a bounded connect timeout and errors that say what to do), and
//! classifying driver errors ([`fault`]). Passwords never reach a message. Statements go through
//! [`pg`], which keeps them working behind pgbouncer.

mod error;
pub mod fault;
pub mod pg;
pub mod pgclient;
pub mod retry;

use std::str::FromStr;
use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::dburl::DatabaseUrl;
pub use error::DbError;

/// SQLSTATE classes and codes outboxctl reacts to.
pub mod sqlstate {
    pub const LOCK_NOT_AVAILABLE: &str = "55P03";
    pub const QUERY_CANCELED: &str = "57014";
    pub const INSUFFICIENT_PRIVILEGE: &str = "42501";
    pub const INVALID_PASSWORD: &str = "28P01";
    pub const INVALID_AUTHORIZATION: &str = "28000";
    pub const INVALID_CATALOG_NAME: &str = "3D000";
    pub const UNDEFINED_TABLE: &str = "42P01";
    pub const DEPENDENT_OBJECTS_STILL_EXIST: &str = "2BP01";
    pub const UNDEFINED_COLUMN: &str = "42703";
    pub const CHECK_VIOLATION: &str = "23514";
    pub const DEADLOCK_DETECTED: &str = "40P01";
    pub const UNTRANSLATABLE_CHARACTER: &str = "22P05";
}

pub fn pg_code(e: &sqlx::Error) -> Option<String> {
    match e {
        sqlx::Error::Database(db) => db.code().map(|c| c.into_owned()),
        _ => None,
    }
}

/// Turns a PostgreSQL error into a one-line message with a hint, scrubbed of the password.
pub fn describe_pg(url: &DatabaseUrl, e: &sqlx::Error) -> String {
    url.scrub(&pg_message(e))
}

/// A PostgreSQL error with a hint on what to do about it.
pub fn pg_message(e: &sqlx::Error) -> String {
    if pg::is_statement_pooling(e) {
        return pg::STATEMENT_POOLING.to_owned();
    }
    // the server's own words, without sqlx's "error returned from database: "
    let base = match e {
        sqlx::Error::Database(db) => db.message().to_owned(),
        _ => e.to_string(),
    };
    // what still depends on it is in the DETAIL ("view app.v depends on table …")
    if pg_code(e).as_deref() == Some(sqlstate::DEPENDENT_OBJECTS_STILL_EXIST) {
        let pg = (e.as_database_error())
            .and_then(|d| d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>());
        let detail = pg.and_then(|d| d.detail()).map(|d| d.replace('\n', "; "));
        let detail = detail.map(|d| format!(" ({d})")).unwrap_or_default();
        return format!(
            "{base}{detail}; drop or change what depends on it, then run the command again"
        );
    }
    let hint = match pg_code(e).as_deref() {
        Some(sqlstate::INVALID_PASSWORD | sqlstate::INVALID_AUTHORIZATION) => {
            "; check the user and password in the database URL"
        }
        Some(sqlstate::INVALID_CATALOG_NAME) => "; check the database name in the URL",
        Some(sqlstate::INSUFFICIENT_PRIVILEGE) => &privilege_hint(&base),
        _ => match e {
            sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                "; is PostgreSQL running and listening on that host and port?"
            }
            _ => "",
        },
    };
    format!("{base}{hint}")
}

/// What a `permission denied` (SQLSTATE 42501) lacks, read from the server's words (`text`):
/// the grant to ask for, named, then where each command's privileges are listed. The hint
/// was one for every case ("CREATE on the schema, ownership of the table"), pointing at a
/// list the README did not have.
pub fn privilege_hint(text: &str) -> String {
    let after = |p: &str| {
        Some(
            text.split_once(p)?
                .1
                .trim()
                .trim_end_matches('.')
                .to_owned(),
        )
    };
    // connecting without CONNECT names the database quoted; CREATE's check does not
    let what = if let Some(db) = after("permission denied for database \"") {
        let db = db.trim_end_matches('"');
        format!(
            "this role needs CONNECT on database {db} (GRANT CONNECT ON DATABASE {db} TO the role)"
        )
    } else if let Some(db) = after("permission denied for database ") {
        format!(
            "this role needs CREATE on database {db} to create a schema (or create the schema first, and grant CREATE on it)"
        )
    } else if let Some(s) = after("permission denied for schema ") {
        format!("this role needs USAGE on schema {s} (and CREATE on it to create objects there)")
    } else if let Some(t) =
        (after("permission denied for table ")).or_else(|| after("permission denied for relation "))
    {
        format!(
            "this role lacks a privilege on table {t}: SELECT to read it, INSERT, UPDATE or DELETE to change it (each partition of a delivery log read directly needs its own)"
        )
    } else if let Some(f) = after("permission denied for function ") {
        format!("this role needs EXECUTE on function {f}")
    } else if let Some(o) = after("must be owner of ") {
        format!(
            "only the owner of {o} (a member of that role, or a superuser) may change it: run this as that role"
        )
    } else {
        "this role lacks a privilege the command needs".to_owned()
    };
    format!("; {what} (each command's privileges: docs/operating.md#privileges)")
}

fn connect_error(url: &DatabaseUrl, reason: String) -> DbError {
    DbError::Connect {
        target: url.to_string(),
        reason: url.scrub(&reason),
    }
}

/// The connect options outboxctl uses for a PostgreSQL URL.
pub fn pg_options(url: &DatabaseUrl) -> Result<PgConnectOptions, DbError> {
    use sqlx::postgres::PgSslMode;
    if let Some(cause) = url.pg_misread() {
        return Err(DbError::BadUrl {
            target: url.to_string(),
            reason: cause.into(),
        });
    }
    let o = PgConnectOptions::from_str(&for_sqlx(url))
        .map_err(|e| DbError::BadUrl {
            target: url.to_string(),
            reason: url.unreadable(&e.to_string()),
        })?
        .application_name("outboxctl")
        // pgbouncer refuses startup parameters it does not track ("unsupported startup
        // parameter: extra_float_digits"); floats travel in binary anyway.
        .extra_float_digits(None)
        .disable_statement_logging();
    // a file that cannot be read is said by its name, before any connection (the driver's
    // "No such file or directory" named none, and read as the server away: exit 3)
    if let Ok(parsed) = url::Url::parse(url.expose()) {
        let files = [
            "sslcert",
            "ssl-cert",
            "sslkey",
            "ssl-key",
            "sslrootcert",
            "ssl-root-cert",
            "ssl-ca",
        ];
        for (k, v) in parsed
            .query_pairs()
            .filter(|(k, v)| files.contains(&&**k) && !v.is_empty())
        {
            if let Err(e) = std::fs::File::open(&*v) {
                return Err(DbError::Tls(format!(
                    "cannot read the database URL's {k} {v}: {e}"
                )));
            }
        }
    }
    let root_cert = has_root_cert(url);
    Ok(match o.get_ssl_mode() {
        // the chain alone, against every public root, would take any site's certificate
        PgSslMode::VerifyCa if !root_cert => {
            return Err(DbError::BadUrl {
                target: url.to_string(),
                reason: "sslmode=verify-ca checks the server's certificate against its CA, not its name: give that CA with sslrootcert=/path/root.crt (or PGSSLROOTCERT), or use sslmode=verify-full".into(),
            });
        }
        // as libpq: with a root certificate, require checks the chain
        PgSslMode::Require if root_cert => o.ssl_mode(PgSslMode::VerifyCa),
        _ => o,
    })
}

/// The query parameters sqlx's URL parser reads (`options[NAME]` too). It logs any other with
/// its value (`sslpassword=…` or `PassWord=…` in plain text) at every connection, and ignores it.
const SQLX_READS: &[&str] = &[
    "sslmode",
    "ssl-mode",
    "sslrootcert",
    "ssl-root-cert",
    "ssl-ca",
    "sslcert",
    "ssl-cert",
    "sslkey",
    "ssl-key",
    "statement-cache-capacity",
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "application_name",
    "options",
];

/// The URL as sqlx is given it: without the query parameters it does not read, which are
/// named (never valued) in a warning, once a process.
fn for_sqlx(url: &DatabaseUrl) -> String {
    let raw = url.expose();
    let Ok(mut parsed) = url::Url::parse(raw) else {
        return raw.to_owned();
    };
    let reads = |k: &str| SQLX_READS.contains(&k) || k.starts_with("options[");
    let (kept, ignored): (Vec<_>, Vec<_>) =
        (parsed.query_pairs().into_owned()).partition(|(k, _)| reads(k));
    if ignored.is_empty() {
        return raw.to_owned();
    }
    static TOLD: std::sync::Once = std::sync::Once::new();
    TOLD.call_once(|| {
        // a password's tail after a raw `?` reads as a parameter: named only where shown
        let shown = crate::dburl::mask(raw);
        let named: Vec<String> = (ignored.iter())
            .filter_map(|(k, _)| crate::desturl::quoted_if_shown(&shown, k))
            .collect();
        // a name not shown as written (percent-encoded, or cut from a password) is counted
        let more = ignored.len() - named.len();
        let which = match (named.join(", "), more) {
            (names, 0) => format!("the database URL's parameter(s) {names} are"),
            (names, n) if names.is_empty() => {
                format!("{n} parameter(s) of the database URL's query (not named: one may be a password's tail) are")
            }
            (names, n) => format!("the database URL's parameter(s) {names} and {n} more are"),
        };
        tracing::warn!(
            "{which} ignored: outboxctl's PostgreSQL driver does not read them"
        );
    });
    parsed.set_query(None);
    if !kept.is_empty() {
        parsed.query_pairs_mut().extend_pairs(kept);
    }
    parsed.into()
}

/// Whether the URL (`sslrootcert`, `ssl-root-cert`) or `PGSSLROOTCERT` names a root certificate.
fn has_root_cert(url: &DatabaseUrl) -> bool {
    let named = url::Url::parse(url.expose()).is_ok_and(|u| {
        u.query_pairs()
            .any(|(k, v)| (k == "sslrootcert" || k == "ssl-root-cert") && !v.is_empty())
    });
    named || std::env::var_os("PGSSLROOTCERT").is_some_and(|v| !v.is_empty())
}

/// Opens one PostgreSQL connection, giving up after `timeout`.
pub async fn connect_pg(url: &DatabaseUrl, timeout: Duration) -> Result<PgConnection, DbError> {
    let options = pg_options(url)?;
    match tokio::time::timeout(timeout, options.connect()).await {
        Err(_) => Err(connect_error(
            url,
            format!(
                "no answer within {} (raise --connect-timeout if the server is slow)",
                crate::duration::Dur(timeout)
            ),
        )),
        Ok(Err(e)) if fault::Fault::of_sqlx(&e).is_connect() => {
            Err(connect_error(url, describe_pg(url, &e)))
        }
        Ok(Err(e)) => Err(DbError::Unusable {
            target: url.to_string(),
            reason: describe_pg(url, &e),
        }),
        Ok(Ok(conn)) => Ok(conn),
    }
}

/// A `mongodb+srv://` lookup that got no usable answer (no record, a timeout, no server),
/// rather than records naming what cannot be (the driver's `SRV … does not match domain`,
/// `TXT …`).
fn dns_unanswered(e: &mongodb::error::Error) -> bool {
    match e.kind.as_ref() {
        mongodb::error::ErrorKind::DnsResolve { message, .. } => {
            !(message.contains("does not match domain") || message.starts_with("TXT"))
        }
        _ => false,
    }
}

/// Opens a MongoDB client and checks that a server answers within `timeout`.
pub async fn connect_mongo(
    url: &DatabaseUrl,
    timeout: Duration,
) -> Result<mongodb::Client, DbError> {
    use mongodb::bson::doc;
    use mongodb::options::ClientOptions;
    let parse = ClientOptions::parse(url.expose());
    let mut options = match tokio::time::timeout(timeout, parse).await {
        Err(_) => return Err(connect_error(url, "resolving the URL took too long".into())),
        // a `mongodb+srv://` name that does not resolve (now): the database cannot be reached,
        // exit 3 as for any host, not a URL to fix (exit 2); what the records say that cannot
        // be (a host outside the domain, a TXT option) stays the URL's to fix
        Ok(Err(e)) if dns_unanswered(&e) => {
            let why = url.scrub(&mongo_message(&e));
            return Err(connect_error(
                url,
                format!("{why}; does the URL name the right host?"),
            ));
        }
        Ok(Err(e)) => {
            return Err(DbError::BadUrl {
                target: url.to_string(),
                reason: url.unreadable(&mongo_message(&e)),
            });
        }
        Ok(Ok(o)) => o,
    };
    options.app_name = Some("outboxctl".into());
    // What outboxctl reads it (or a relay) has just written: a claim read back by its token,
    // strict order's check of earlier documents, a requeue's selection. A secondary's copy
    // lags, so the primary answers whatever the URL's readPreference asks.
    let primary = mongodb::options::ReadPreference::Primary;
    options.selection_criteria = Some(mongodb::options::SelectionCriteria::ReadPreference(primary));
    options.server_selection_timeout = Some(timeout);
    options.connect_timeout = Some(timeout);
    let client = mongodb::Client::with_options(options).map_err(|e| DbError::BadUrl {
        target: url.to_string(),
        reason: url.unreadable(&mongo_message(&e)),
    })?;
    match client
        .database("admin")
        .run_command(doc! { "ping": 1 })
        .await
    {
        Ok(_) => Ok(client),
        Err(e) if fault::Fault::of_mongo(&e).is_connect() => {
            let message = mongo_message(&e);
            let hint = match *e.kind {
                mongodb::error::ErrorKind::Authentication { .. } => {
                    "; check the user and password in the database URL"
                }
                // mongod answers, as a member of a replica set never initiated
                _ if message.contains("RsGhost") => {
                    "; mongod answers, but its replica set is not initiated: run rs.initiate() on it (mongosh)"
                }
                _ => {
                    "; is mongod running, and does the URL name the right host, port and replicaSet?"
                }
            };
            // the driver's text is its Debug of the whole topology, cut mid-word
            Err(connect_error(url, format!("{message}{hint}")))
        }
        Err(e) => Err(DbError::Unusable {
            target: url.to_string(),
            reason: url.scrub(&e.to_string()),
        }),
    }
}

/// Whether `db.collection` exists, as a role granted only some collections may still ask
/// (`authorizedCollections`): `migrate` made it, or a write would make it, mistyped too.
pub async fn mongo_collection_exists(
    client: &mongodb::Client,
    db: &str,
    collection: &str,
) -> Result<bool, mongodb::error::Error> {
    let names = (client.database(db))
        .list_collection_names()
        .filter(mongodb::bson::doc! { "name": collection })
        .authorized_collections(true)
        .await?;
    Ok(!names.is_empty())
}

/// A MongoDB driver error in outboxctl's words, one line: the server's code name, code and
/// message for a command or write concern error, the first server's own error for a server
/// selection that found none, and otherwise the driver's text without its `Kind: ` and label
/// decorations.
pub fn mongo_message(e: &mongodb::error::Error) -> String {
    use mongodb::error::{ErrorKind, WriteFailure};
    let coded = |name: &str, code: i32, message: &str| format!("{message} ({name}, code {code})");
    let text = match e.kind.as_ref() {
        ErrorKind::Command(c) => coded(&c.code_name, c.code, &c.message),
        ErrorKind::Write(WriteFailure::WriteConcernError(w)) => {
            coded(&w.code_name, w.code, &w.message)
        }
        ErrorKind::Write(WriteFailure::WriteError(w)) => coded(
            w.code_name.as_deref().unwrap_or("WriteError"),
            w.code,
            &w.message,
        ),
        ErrorKind::Authentication { message, .. } => format!("authentication failed: {message}"),
        // outboxctl's own error, carried out of a transaction's callback
        ErrorKind::Custom(_) if e.get_custom::<String>().is_some() => {
            e.get_custom::<String>().cloned().unwrap_or_default()
        }
        ErrorKind::ServerSelection { message, .. } => {
            // "… Servers: [ { Address: h:p, Type: Unknown, Error: Kind: I/O error: Connection
            // refused (os error 111), labels: {} } ] }": the first server and its error
            let server = message
                .split("Address: ")
                .nth(1)
                .and_then(|rest| rest.split(',').next());
            let error = message
                .split("Error: ")
                .nth(1)
                .map(|rest| rest.trim_start_matches("Kind: "))
                .and_then(|rest| rest.split(", labels:").next());
            match (server, error) {
                (Some(server), Some(error)) => {
                    format!("no MongoDB server to talk to ({server}: {error})")
                }
                _ => format!("no MongoDB server to talk to ({message})"),
            }
        }
        _ => {
            let text = e.to_string();
            let text = text.strip_prefix("Kind: ").unwrap_or(&text).to_owned();
            // the first: a source's Debug that follows has labels of its own
            match text.find(", labels: ") {
                Some(at) => text[..at].to_owned(),
                None => text,
            }
        }
    };
    first_line(&text)
}

/// Driver messages can span lines (server selection lists every server); keep the first.
pub fn first_line(message: &str) -> String {
    crate::text::clip(message.lines().next().unwrap_or_default(), 300)
}

#[cfg(test)]
mod tests {
    use super::privilege_hint;

    #[test]
    fn a_permission_denied_names_the_grant_it_lacks() {
        let cases = [
            (
                "permission denied for database test",
                "CREATE on database test",
            ),
            (
                "permission denied for database \"app\"",
                "CONNECT on database app (",
            ),
            ("permission denied for schema app", "USAGE on schema app"),
            (
                "permission denied for table delivered_default",
                "privilege on table delivered_default: SELECT",
            ),
            (
                "permission denied for function outbox_claim_1a2b3c4d",
                "EXECUTE on function outbox_claim_1a2b3c4d",
            ),
            (
                "must be owner of table outbox",
                "only the owner of table outbox",
            ),
            (
                "permission denied to create role",
                "lacks a privilege the command needs",
            ),
        ];
        for (text, names) in cases {
            let hint = privilege_hint(text);
            assert!(hint.contains(names), "{text}: {hint}");
            assert!(hint.ends_with("(each command's privileges: docs/operating.md#privileges)"));
        }
    }
}
