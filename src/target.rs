//! Validated names of the things outboxctl touches: PostgreSQL identifiers and relations
//! (`schema.table`, optionally a per-tenant template), MongoDB `db.collection` names.
//!
//! Every identifier that reaches SQL goes through [`Ident`], whose `Display` quotes exactly as
//! PostgreSQL's `quote_ident` does. Nothing here performs I/O.

use std::fmt;

use thiserror::Error;
use uuid::Uuid;

/// PostgreSQL truncates identifiers longer than this (NAMEDATALEN - 1).
pub const MAX_IDENT_BYTES: usize = 63;

/// Keywords that `quote_ident` quotes (every category but "unreserved"), PostgreSQL 15.
const QUOTED_KEYWORDS: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NameError {
    #[error("{what} {name:?} is empty")]
    Empty { what: &'static str, name: String },
    #[error(
        "{what} {name:?} is longer than {MAX_IDENT_BYTES} bytes, which PostgreSQL would truncate"
    )]
    TooLong { what: &'static str, name: String },
    #[error(
        "{what} {name:?} is longer than {MAX_IDENT_BYTES} bytes once {{tenant}} is a tenant's 32-character id, which PostgreSQL would truncate"
    )]
    TooLongPerTenant { what: &'static str, name: String },
    /// A name derived from another, with how to choose it instead.
    #[error("{error}; {hint}")]
    Derived { error: String, hint: &'static str },
    #[error("{what} {name:?} contains a control character")]
    Control { what: &'static str, name: String },
    #[error(
        "{what} {name:?} is not of the form schema.table (quote a part with \"…\" to keep dots or capitals)"
    )]
    Shape { what: &'static str, name: String },
    #[error("{what} {name:?}: {why}; quote the part to keep it as written: \"{part}\"")]
    Unquoted {
        what: &'static str,
        name: String,
        /// The part as it would be quoted (its quotes doubled).
        part: String,
        why: String,
    },
    #[error("{what} {name:?} has an unterminated quoted part")]
    Unterminated { what: &'static str, name: String },
    #[error("{what} {name:?} is not of the form db.collection")]
    MongoShape { what: &'static str, name: String },
    #[error(
        "{what} {name:?}: MongoDB database names cannot contain any of /\\. \"$*<>:|? or exceed 63 bytes"
    )]
    MongoDb { what: &'static str, name: String },
    #[error("{what} {name:?}: MongoDB collection names cannot contain '$' or start with 'system.'")]
    MongoCollection { what: &'static str, name: String },
    #[error(
        "{what} {name:?} is {bytes} bytes: a MongoDB namespace (database.collection) holds 255 at most"
    )]
    MongoNamespace {
        what: &'static str,
        name: String,
        bytes: usize,
    },
    #[error("{what} {name:?} uses {{tenant}} in the schema and the table; use it in one part only")]
    TemplateTwice { what: &'static str, name: String },
}

/// One PostgreSQL identifier, stored as its actual (case-sensitive) name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident(String);

impl Ident {
    /// Validates an identifier given as its exact name (no quoting, no case folding).
    pub fn new(what: &'static str, name: &str) -> Result<Self, NameError> {
        if name.is_empty() {
            return Err(NameError::Empty {
                what,
                name: name.into(),
            });
        }
        if name.len() > MAX_IDENT_BYTES {
            return Err(NameError::TooLong {
                what,
                name: name.into(),
            });
        }
        if name.chars().any(char::is_control) {
            return Err(NameError::Control {
                what,
                name: name.into(),
            });
        }
        Ok(Self(name.to_owned()))
    }

    /// The exact name, as stored in the catalog.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// A sibling name derived by appending a suffix, e.g. `outbox` + `_claim_idx`.
    pub fn with_suffix(&self, what: &'static str, suffix: &str) -> Result<Self, NameError> {
        Self::new(what, &format!("{}{}", self.0, suffix))
    }

    /// Whether PostgreSQL would need quotes to read this name back unchanged.
    pub fn needs_quotes(&self) -> bool {
        let mut chars = self.0.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
        let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        !(first_ok && rest_ok) || QUOTED_KEYWORDS.binary_search(&self.0.as_str()).is_ok()
    }
}

impl fmt::Display for Ident {
    /// Quotes like PostgreSQL's `quote_ident`: only where needed, doubling embedded quotes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.needs_quotes() {
            write!(f, "\"{}\"", self.0.replace('"', "\"\""))
        } else {
            f.write_str(&self.0)
        }
    }
}

/// A schema-qualified relation, `schema.table`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: Ident,
    pub name: Ident,
}

impl QualifiedName {
    pub fn new(schema: Ident, name: Ident) -> Self {
        Self { schema, name }
    }

    /// Parses `schema.table` with SQL rules: unquoted parts fold to lower case, `"…"` keeps
    /// the text exactly (`""` is a quote). A bare `table` means `public.table`.
    pub fn parse(what: &'static str, text: &str) -> Result<Self, NameError> {
        let parts = split_sql_name(what, text)?;
        match parts.as_slice() {
            [table] => Ok(Self::new(
                Ident::new(what, "public")?,
                Ident::new(what, table)?,
            )),
            [schema, table] => Ok(Self::new(
                Ident::new(what, schema)?,
                Ident::new(what, table)?,
            )),
            _ => Err(NameError::Shape {
                what,
                name: text.into(),
            }),
        }
    }

    /// A relation in the same schema whose table name is this one's plus a suffix.
    pub fn sibling(&self, what: &'static str, suffix: &str) -> Result<QualifiedName, NameError> {
        Ok(Self::new(
            self.schema.clone(),
            self.name.with_suffix(what, suffix)?,
        ))
    }

    /// `schema.table` without quotes, for messages and lock keys.
    pub fn plain(&self) -> String {
        format!("{}.{}", self.schema.name(), self.name.name())
    }
}

impl fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.schema, self.name)
    }
}

/// Splits a possibly quoted dotted SQL name into its exact parts.
fn split_sql_name(what: &'static str, text: &str) -> Result<Vec<String>, NameError> {
    let mut parts = Vec::new();
    let mut chars = text.trim().chars().peekable();
    loop {
        let mut part = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        part.push('"');
                    }
                    Some('"') => break,
                    Some(c) => part.push(c),
                    None => {
                        return Err(NameError::Unterminated {
                            what,
                            name: text.into(),
                        });
                    }
                }
            }
        } else {
            // what a part that needs quotes would be, quoted: the text up to the next dot
            let raw: String = chars.clone().take_while(|&c| c != '.').collect();
            let unquoted = |why: String| NameError::Unquoted {
                what,
                name: text.into(),
                part: raw.replace('"', "\"\""),
                why,
            };
            while let Some(&c) = chars.peek() {
                if c == '.' {
                    break;
                }
                if c == '{' || c == '}' {
                    // the placeholder whole, or a typo of it (`{tenantx}` named a schema)
                    let ahead: String = chars.clone().take(TENANT_PLACEHOLDER.len()).collect();
                    if ahead == TENANT_PLACEHOLDER {
                        part.push_str(TENANT_PLACEHOLDER);
                        chars.nth(TENANT_PLACEHOLDER.len() - 1);
                        continue;
                    }
                    let why = format!(
                        "{c:?} is not a letter, digit, _ or $ ({{tenant}} is the only placeholder)"
                    );
                    return Err(unquoted(why));
                }
                if !(c.is_alphanumeric() || c == '_' || c == '$') {
                    let why = format!("{c:?} is not a letter, digit, _ or $");
                    return Err(unquoted(why));
                }
                part.push(c.to_ascii_lowercase());
                chars.next();
            }
            if part.is_empty() {
                return Err(NameError::Shape {
                    what,
                    name: text.into(),
                });
            }
            if let Some(c) = part
                .chars()
                .next()
                .filter(|c| c.is_ascii_digit() || *c == '$')
            {
                let why = format!("an unquoted part must start with a letter or _, not {c:?}");
                return Err(unquoted(why));
            }
        }
        parts.push(part);
        match chars.next() {
            None => return Ok(parts),
            Some('.') => continue,
            Some(_) => {
                return Err(NameError::Shape {
                    what,
                    name: text.into(),
                });
            }
        }
    }
}

/// The placeholder a per-tenant relation or collection carries.
pub const TENANT_PLACEHOLDER: &str = "{tenant}";

/// A short name derived from `text`: the first 8 hex digits of its SHA-256 (a claim
/// function's name, a replay cursor's source).
pub fn short_hash(text: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(text.as_bytes());
    hash[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// How a tenant id is written into a per-tenant name: 32 lowercase hex digits, so the
/// resulting identifier needs no quotes.
pub fn tenant_fragment(tenant: Uuid) -> String {
    tenant.simple().to_string()
}

/// A relation that may be per tenant (`{tenant}` in the schema or the table part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationSpec {
    what: &'static str,
    schema: String,
    table: String,
}

impl RelationSpec {
    pub fn parse(what: &'static str, text: &str) -> Result<Self, NameError> {
        let parts = split_sql_name(what, text)?;
        let (schema, table) = match parts.as_slice() {
            [table] => ("public".to_owned(), table.clone()),
            [schema, table] => (schema.clone(), table.clone()),
            _ => {
                return Err(NameError::Shape {
                    what,
                    name: text.into(),
                });
            }
        };
        if schema.contains(TENANT_PLACEHOLDER) && table.contains(TENANT_PLACEHOLDER) {
            return Err(NameError::TemplateTwice {
                what,
                name: text.into(),
            });
        }
        let spec = Self {
            what,
            schema,
            table,
        };
        // Validate with a sample tenant so that a bad template fails before any I/O; a name
        // too long is said as given, with what a tenant's id adds (it showed the sample's zeros)
        match spec.resolve(Some(Uuid::nil())) {
            Err(NameError::TooLong { what, .. }) if spec.is_per_tenant() => {
                let name = text.into();
                return Err(NameError::TooLongPerTenant { what, name });
            }
            resolved => resolved?,
        };
        Ok(spec)
    }

    pub fn is_per_tenant(&self) -> bool {
        self.schema.contains(TENANT_PLACEHOLDER) || self.table.contains(TENANT_PLACEHOLDER)
    }

    /// Whether the schema part is a tenant's (`app_{tenant}.outbox`).
    pub fn schema_is_per_tenant(&self) -> bool {
        self.schema.contains(TENANT_PLACEHOLDER)
    }

    /// The concrete relation for a tenant (the tenant is ignored for a plain relation).
    pub fn resolve(&self, tenant: Option<Uuid>) -> Result<QualifiedName, NameError> {
        let fill = |s: &str| match tenant {
            Some(t) => s.replace(TENANT_PLACEHOLDER, &tenant_fragment(t)),
            None => s.to_owned(),
        };
        Ok(QualifiedName::new(
            Ident::new(self.what, &fill(&self.schema))?,
            Ident::new(self.what, &fill(&self.table))?,
        ))
    }

    /// As SQL text that [`RelationSpec::parse`] reads back to the same names: each part
    /// quoted where it needs it (an upper-case letter, a `-`, a keyword), `{tenant}` kept.
    pub fn sql_text(&self) -> String {
        let part = |s: &str| {
            let plain = s.replace(TENANT_PLACEHOLDER, "");
            if !plain.is_empty() && Ident(plain).needs_quotes() {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_owned()
            }
        };
        format!("{}.{}", part(&self.schema), part(&self.table))
    }

    /// This relation with `suffix` added to its table's name (`{tenant}` kept).
    pub fn with_table_suffix(&self, suffix: &str) -> Self {
        Self {
            table: format!("{}{suffix}", self.table),
            ..self.clone()
        }
    }

    /// The schema's name, unless it is per tenant.
    pub fn fixed_schema(&self) -> Option<&str> {
        (!self.schema.contains(TENANT_PLACEHOLDER)).then_some(self.schema.as_str())
    }

    /// The text form, with `{tenant}` left in place.
    pub fn template(&self) -> String {
        format!("{}.{}", self.schema, self.table)
    }
}

impl fmt::Display for RelationSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.template())
    }
}

/// A MongoDB collection, `db.collection`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CollectionName {
    pub db: String,
    pub collection: String,
}

impl CollectionName {
    pub fn parse(what: &'static str, text: &str) -> Result<Self, NameError> {
        let text = text.trim();
        let (db, collection) = text.split_once('.').ok_or_else(|| NameError::MongoShape {
            what,
            name: text.into(),
        })?;
        Self::new(what, db, collection)
    }

    pub fn new(what: &'static str, db: &str, collection: &str) -> Result<Self, NameError> {
        let full = format!("{db}.{collection}");
        if db.is_empty() || collection.is_empty() {
            return Err(NameError::MongoShape { what, name: full });
        }
        if db.len() > 63
            || db
                .chars()
                .any(|c| "/\\. \"$*<>:|?".contains(c) || c.is_control())
        {
            return Err(NameError::MongoDb { what, name: full });
        }
        if collection.contains('$')
            || collection.starts_with("system.")
            || collection.chars().any(char::is_control)
        {
            return Err(NameError::MongoCollection { what, name: full });
        }
        if full.len() > 255 {
            let (name, bytes) = (crate::text::clip(&full, 40), full.len());
            return Err(NameError::MongoNamespace { what, name, bytes });
        }
        Ok(Self {
            db: db.to_owned(),
            collection: collection.to_owned(),
        })
    }

    /// A collection in the same database whose name is this one's plus a suffix.
    pub fn sibling(&self, what: &'static str, suffix: &str) -> Result<Self, NameError> {
        Self::new(what, &self.db, &format!("{}{}", self.collection, suffix))
    }
}

impl fmt::Display for CollectionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.db, self.collection)
    }
}

#[cfg(test)]
#[path = "target_tests.rs"]
mod tests;
