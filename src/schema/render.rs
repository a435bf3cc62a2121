//! Rendering schema text from `templates/`: SQL for PostgreSQL, a mongosh script for MongoDB.
//!
//! Templates take only [`Sql`] fragments, which can be made from validated identifiers
//! (quoted by [`crate::target::Ident`]) or from `'static` text in this crate: a value from the
//! configuration can never be spliced into SQL unquoted.

use std::fmt;

use serde::Deserialize;

use crate::target::{CollectionName, Ident, QualifiedName};

pub const OUTBOX_SQL: &str = include_str!("../../templates/postgres/outbox.sql");
pub const TRACEPARENT_SQL: &str = include_str!("../../templates/postgres/traceparent.sql");
pub const HLC_SQL: &str = include_str!("../../templates/postgres/hlc.sql");
pub const KEY_ORDER_SQL: &str = include_str!("../../templates/postgres/key_order.sql");
pub const CHECKPOINT_SQL: &str = include_str!("../../templates/postgres/hlc_checkpoint.sql");
pub const DELIVERY_LOG_SQL: &str = include_str!("../../templates/postgres/delivery_log.sql");
pub const SINK_SQL: &str = include_str!("../../templates/postgres/sink.sql");
pub const REGISTRY_SQL: &str = include_str!("../../templates/postgres/registry.sql");
pub const REPLAY_SQL: &str = include_str!("../../templates/postgres/replay.sql");
pub const WAKE_SQL: &str = include_str!("../../templates/postgres/wake.sql");

const MONGO_OUTBOX_INDEXES: &str = include_str!("../../templates/mongo/outbox_indexes.json");
const MONGO_HLC_INDEXES: &str = include_str!("../../templates/mongo/hlc_indexes.json");
const MONGO_KEY_ORDER_INDEXES: &str = include_str!("../../templates/mongo/key_order_indexes.json");
const MONGO_KEY_ORDER_HLC_INDEXES: &str =
    include_str!("../../templates/mongo/key_order_hlc_indexes.json");
const MONGO_CLAIM_ORDER_INDEXES: &str =
    include_str!("../../templates/mongo/claim_order_indexes.json");
const MONGO_CLAIM_ORDER_HLC_INDEXES: &str =
    include_str!("../../templates/mongo/claim_order_hlc_indexes.json");
const MONGO_REPLAY_INDEXES: &str = include_str!("../../templates/mongo/replay_indexes.json");
const MONGO_REPLAY_HLC_INDEXES: &str =
    include_str!("../../templates/mongo/replay_hlc_indexes.json");

/// A trusted SQL fragment: a quoted identifier or crate-owned static text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sql(String);

impl Sql {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&Ident> for Sql {
    fn from(ident: &Ident) -> Self {
        Sql(ident.to_string())
    }
}

impl From<&QualifiedName> for Sql {
    fn from(name: &QualifiedName) -> Self {
        Sql(name.to_string())
    }
}

impl From<&'static str> for Sql {
    fn from(text: &'static str) -> Self {
        Sql(text.to_owned())
    }
}

/// One SQL statement and the comment lines that introduce it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Statement {
    pub comment: Option<String>,
    pub sql: String,
}

impl Statement {
    pub fn new(sql: impl Into<String>) -> Self {
        Self {
            comment: None,
            sql: sql.into(),
        }
    }

    pub fn with_comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }

    /// The same `CREATE [UNIQUE] INDEX` built without blocking writes, on one line.
    pub fn concurrently(&self) -> Statement {
        let sql = one_line(&self.sql);
        let sql = sql
            .replacen(
                "CREATE UNIQUE INDEX ",
                "CREATE UNIQUE INDEX CONCURRENTLY ",
                1,
            )
            .replacen("CREATE INDEX ", "CREATE INDEX CONCURRENTLY ", 1);
        Statement {
            comment: self.comment.clone(),
            sql,
        }
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(comment) = &self.comment {
            for line in comment.lines() {
                // a line already a comment (SQL's, or a mongosh script's) stays as it is
                if line.starts_with("--") || line.starts_with("//") {
                    writeln!(f, "{line}")?;
                } else {
                    writeln!(f, "-- {line}")?;
                }
            }
        }
        f.write_str(&self.sql)
    }
}

/// Writes statements separated by blank lines, as the specification lays them out.
pub fn join(statements: &[Statement]) -> String {
    let mut out = String::new();
    for (i, s) in statements.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&s.to_string());
    }
    out.push('\n');
    out
}

/// Fills `{{name}}` placeholders and splits the result into statements (blank-line separated;
/// leading `--` lines become the statement's comment). Panics on an unknown placeholder,
/// which the template tests catch: templates are part of the crate.
pub fn render(template: &str, vars: &[(&str, Sql)]) -> Vec<Statement> {
    let mut text = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        text.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("unterminated placeholder") + start;
        let name = &rest[start + 2..end];
        let value = vars
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("template placeholder {{{{{name}}}}} has no value"));
        text.push_str(value.1.as_str());
        rest = &rest[end + 2..];
    }
    text.push_str(rest);
    text.trim()
        .split("\n\n")
        .map(|block| {
            let (comments, sql): (Vec<&str>, Vec<&str>) =
                block.lines().partition(|l| l.starts_with("--"));
            let stmt = Statement::new(sql.join("\n"));
            if comments.is_empty() {
                stmt
            } else {
                stmt.with_comment(comments.join("\n"))
            }
        })
        .collect()
}

/// `ALTER TABLE t ADD COLUMN …` for the given column definitions: one line for one column,
/// the specification's multi-line form for several.
pub fn add_columns(table: &QualifiedName, ddl: &[&'static str]) -> Statement {
    if let [one] = ddl {
        return Statement::new(format!("ALTER TABLE {table} ADD COLUMN {one};"));
    }
    let body = ddl
        .iter()
        .map(|d| format!("    ADD COLUMN {d}"))
        .collect::<Vec<_>>()
        .join(",\n");
    Statement::new(format!("ALTER TABLE {table}\n{body};"))
}

// ---- MongoDB ----------------------------------------------------------------------------

/// A MongoDB index as the schema wants it (key order matters).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct MongoIndexSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// A name of its own (else the server's, from the keys): needed beside another index on
    /// the same keys, and to hint it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub keys: Vec<(String, i32)>,
    #[serde(default)]
    pub unique: bool,
    #[serde(default)]
    pub sparse: bool,
    /// `partialFilterExpression`: only documents it matches are in the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<serde_json::Map<String, serde_json::Value>>,
}

impl MongoIndexSpec {
    /// Its `partialFilterExpression` as BSON.
    pub fn partial_filter(&self) -> Option<mongodb::bson::Document> {
        self.partial.as_ref().map(|p| {
            mongodb::bson::to_document(p).expect("templates/mongo partial filters are documents")
        })
    }
}

fn mongo_specs(json: &str) -> Vec<MongoIndexSpec> {
    serde_json::from_str(json).expect("templates/mongo index specs are valid")
}

pub fn mongo_outbox_indexes() -> Vec<MongoIndexSpec> {
    mongo_specs(MONGO_OUTBOX_INDEXES)
}

pub fn mongo_hlc_indexes() -> Vec<MongoIndexSpec> {
    mongo_specs(MONGO_HLC_INDEXES)
}

/// The index strict order's check reads each claimed key through, in the claim's order (HLC
/// claim order with `hlc`): the documents not yet published, so that the check stops at the
/// latest claimed document instead of reading a key's whole backlog.
pub fn mongo_key_order_indexes(hlc: bool) -> Vec<MongoIndexSpec> {
    mongo_specs(if hlc {
        MONGO_KEY_ORDER_HLC_INDEXES
    } else {
        MONGO_KEY_ORDER_INDEXES
    })
}

/// The index the claim reads in its order (HLC claim order with `hlc`): pending documents
/// by `created_at, id`, so a claim stops at its batch instead of sorting every one.
pub fn mongo_claim_order_indexes(hlc: bool) -> Vec<MongoIndexSpec> {
    mongo_specs(if hlc {
        MONGO_CLAIM_ORDER_HLC_INDEXES
    } else {
        MONGO_CLAIM_ORDER_INDEXES
    })
}

/// The replay index, in claim order (HLC claim order with `hlc`).
pub fn mongo_replay_indexes(hlc: bool) -> Vec<MongoIndexSpec> {
    mongo_specs(if hlc {
        MONGO_REPLAY_HLC_INDEXES
    } else {
        MONGO_REPLAY_INDEXES
    })
}

/// Method names of mongosh's `db` object: a collection with such a name must be reached
/// through `db.getCollection(…)`.
const DB_METHODS: &[&str] = &[
    "adminCommand",
    "aggregate",
    "auth",
    "commandHelp",
    "createCollection",
    "createRole",
    "createUser",
    "createView",
    "currentOp",
    "dropDatabase",
    "dropUser",
    "eval",
    "fsyncLock",
    "getCollection",
    "getCollectionNames",
    "getMongo",
    "getName",
    "getProfilingStatus",
    "getSiblingDB",
    "help",
    "hello",
    "hostInfo",
    "isMaster",
    "killOp",
    "logout",
    "printShardingStatus",
    "runCommand",
    "serverStatus",
    "setProfilingLevel",
    "shutdownServer",
    "stats",
    "version",
    "watch",
];

/// The mongosh expression for a collection in the current `db`.
pub fn mongo_collection_expr(name: &CollectionName) -> String {
    let plain = name
        .collection
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .collection
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !DB_METHODS.contains(&name.collection.as_str());
    if plain {
        format!("db.{}", name.collection)
    } else {
        format!("db.getCollection({})", js_string(&name.collection))
    }
}

/// A JavaScript string literal (JSON's rules are valid JavaScript).
pub fn js_string(text: &str) -> String {
    serde_json::to_string(text).expect("strings serialise")
}

fn js_key(key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        key.to_owned()
    } else {
        js_string(key)
    }
}

/// `db.outbox.createIndex({ … }, { … })`, in the specification's spacing.
pub fn mongo_create_index(collection: &CollectionName, spec: &MongoIndexSpec) -> Statement {
    let keys = spec
        .keys
        .iter()
        .map(|(k, dir)| format!("{}: {dir}", js_key(k)))
        .collect::<Vec<_>>()
        .join(", ");
    let mut options = Vec::new();
    if spec.unique {
        options.push("unique: true".to_owned());
    }
    if spec.sparse {
        options.push("sparse: true".to_owned());
    }
    if let Some(name) = &spec.name {
        options.push(format!("name: {}", js_string(name)));
    }
    if let Some(partial) = &spec.partial {
        let filter = serde_json::to_string(partial).expect("serialises");
        options.push(format!("partialFilterExpression: {filter}"));
    }
    let options = if options.is_empty() {
        String::new()
    } else {
        format!(", {{ {} }}", options.join(", "))
    };
    let stmt = Statement::new(format!(
        "{}.createIndex({{ {keys} }}{options})",
        mongo_collection_expr(collection)
    ));
    match &spec.comment {
        Some(c) => stmt.with_comment(format!("// {c}")),
        None => stmt,
    }
}

/// Writes mongosh statements, comments as `//` lines.
pub fn join_js(statements: &[Statement]) -> String {
    let mut out = String::new();
    for s in statements {
        if let Some(comment) = &s.comment {
            for line in comment.lines() {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push_str(&s.sql);
        out.push('\n');
    }
    out
}

/// `sql` on one line: each run of white space outside quotes becomes one space; what is inside
/// a quoted identifier or a string literal stays as written (a name may hold two spaces).
fn one_line(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    let mut space = false;
    for c in sql.trim().chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c.is_whitespace() => space = true,
            None => {
                if space {
                    out.push(' ');
                    space = false;
                }
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_keeps_what_is_quoted() {
        let sql = "CREATE INDEX \"a  b_idx\"\n    ON s.\"a  b\" (x)\n    WHERE y = 'two  spaces'";
        assert_eq!(
            one_line(sql),
            "CREATE INDEX \"a  b_idx\" ON s.\"a  b\" (x) WHERE y = 'two  spaces'"
        );
        let concurrently = Statement::new(sql).concurrently().sql;
        assert!(
            concurrently.starts_with("CREATE INDEX CONCURRENTLY \"a  b_idx\""),
            "{concurrently}"
        );
    }

    #[test]
    fn render_splits_statements_and_comments() {
        let t = QualifiedName::parse("t", "app.outbox").unwrap();
        let idx = t.name.with_suffix("i", "_claim_idx").unwrap();
        let stmts = render(
            OUTBOX_SQL,
            &[("outbox", (&t).into()), ("claim_idx", (&idx).into())],
        );
        assert_eq!(stmts.len(), 2);
        assert!(stmts[0].sql.starts_with("CREATE TABLE app.outbox ("));
        assert_eq!(
            stmts[1].comment.as_deref(),
            Some("-- covers the claim predicate (route + pending + ripe, oldest first)")
        );
        assert_eq!(
            stmts[1].concurrently().sql,
            "CREATE INDEX CONCURRENTLY outbox_claim_idx ON app.outbox (outbox_route, status, available_at, created_at);"
        );
    }

    #[test]
    fn quoted_names_reach_sql_quoted() {
        let t = QualifiedName::parse("t", "\"My App\".\"x\"\"; DROP TABLE y; --\"").unwrap();
        let stmt = add_columns(&t, &["traceparent TEXT"]);
        assert_eq!(
            stmt.sql,
            "ALTER TABLE \"My App\".\"x\"\"; DROP TABLE y; --\" ADD COLUMN traceparent TEXT;"
        );
    }

    #[test]
    #[should_panic(expected = "has no value")]
    fn unknown_placeholder_panics() {
        render("SELECT {{nope}}", &[]);
    }

    #[test]
    fn mongo_templates_parse_and_render() {
        let c = CollectionName::parse("c", "app.outbox").unwrap();
        let specs = mongo_outbox_indexes();
        assert_eq!(specs.len(), 5);
        assert_eq!(
            mongo_create_index(&c, &specs[0]).sql,
            "db.outbox.createIndex({ outbox_route: 1, event_id: 1 }, { unique: true })"
        );
        let odd = CollectionName::parse("c", "app.stats").unwrap();
        assert!(
            mongo_create_index(&odd, &specs[0])
                .sql
                .starts_with("db.getCollection(\"stats\")")
        );
        assert_eq!(mongo_hlc_indexes().len(), 1);
        let (plain, hlc) = (
            mongo_key_order_indexes(false),
            mongo_key_order_indexes(true),
        );
        assert_eq!((plain.len(), hlc.len()), (1, 1));
        // the same documents (those not yet published), each key's in its claim order
        assert_eq!(plain[0].partial, hlc[0].partial);
        let keys = |s: &MongoIndexSpec| s.keys.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        assert_eq!(
            keys(&plain[0]),
            ["outbox_route", "ordering_key", "created_at"]
        );
        assert_eq!(
            keys(&hlc[0]),
            ["outbox_route", "ordering_key", "hlc", "created_at"]
        );
    }
}
