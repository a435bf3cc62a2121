//! The schema a configuration asks for, with every object name derived from the table name
//! (`T_claim_idx`, `T_claim_hlc_idx`, `L_event_idx`, `L_default`, …), and the statements that
//! create it. Pure: no I/O.

use uuid::Uuid;

use super::render::{self, MongoIndexSpec, Statement};
use crate::config::{Config, Target};
use crate::model::{KeyOrder, Storage};
use crate::target::{CollectionName, Ident, NameError, QualifiedName};

/// One column of the outbox table as the specification defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnSpec {
    pub name: &'static str,
    /// The column definition as `ADD COLUMN` takes it.
    pub ddl: &'static str,
    /// The type as `format_type()` reports it.
    pub pg_type: &'static str,
    pub not_null: bool,
    /// The default as `pg_get_expr()` reports it.
    pub default: Option<&'static str>,
    /// Which part of the specification adds the column to an existing table (`None`: part
    /// of the original table, never added by outboxctl).
    pub added_by: Option<Addition>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addition {
    /// attempts, available_at, ordering_key: the specification's migration of older tables.
    Retries,
    Traceparent,
    Hlc,
}

const fn col(
    name: &'static str,
    ddl: &'static str,
    pg_type: &'static str,
    not_null: bool,
) -> ColumnSpec {
    ColumnSpec {
        name,
        ddl,
        pg_type,
        not_null,
        default: None,
        added_by: None,
    }
}

pub const OUTBOX_COLUMNS: &[ColumnSpec] = &[
    col("id", "id UUID", "uuid", true),
    col("outbox_route", "outbox_route TEXT NOT NULL", "text", true),
    col("event_id", "event_id UUID NOT NULL", "uuid", true),
    col("event_type", "event_type TEXT NOT NULL", "text", true),
    col("tenant_id", "tenant_id UUID", "uuid", false),
    col("execution_id", "execution_id UUID", "uuid", false),
    col("correlation_id", "correlation_id UUID", "uuid", false),
    col("causation_id", "causation_id UUID", "uuid", false),
    col(
        "occurred_at",
        "occurred_at TIMESTAMPTZ NOT NULL",
        "timestamp with time zone",
        true,
    ),
    col("payload", "payload JSONB NOT NULL", "jsonb", true),
    col("status", "status TEXT NOT NULL", "text", true),
    col(
        "created_at",
        "created_at TIMESTAMPTZ NOT NULL",
        "timestamp with time zone",
        true,
    ),
    col(
        "published_at",
        "published_at TIMESTAMPTZ",
        "timestamp with time zone",
        false,
    ),
    col(
        "processing_at",
        "processing_at TIMESTAMPTZ",
        "timestamp with time zone",
        false,
    ),
    col("last_error", "last_error TEXT", "text", false),
    ColumnSpec {
        default: Some("0"),
        added_by: Some(Addition::Retries),
        ..col(
            "attempts",
            "attempts INT NOT NULL DEFAULT 0",
            "integer",
            true,
        )
    },
    ColumnSpec {
        added_by: Some(Addition::Retries),
        ..col(
            "available_at",
            "available_at TIMESTAMPTZ",
            "timestamp with time zone",
            false,
        )
    },
    ColumnSpec {
        added_by: Some(Addition::Retries),
        ..col("ordering_key", "ordering_key TEXT", "text", false)
    },
    ColumnSpec {
        added_by: Some(Addition::Traceparent),
        ..col("traceparent", "traceparent TEXT", "text", false)
    },
    ColumnSpec {
        added_by: Some(Addition::Hlc),
        ..col("hlc", "hlc BIGINT", "bigint", false)
    },
];

/// Columns that only retain storage writes; consume storage may have dropped them.
pub const RETAIN_ONLY_COLUMNS: &[&str] = &["processing_at", "published_at"];

/// What to do when a relay's statement fails for want of `processing_at` (`message`: the
/// database's error, in English): the table is consume-only (the storage move's step 3 dropped
/// it with `published_at`), so retain storage and reclaim cannot run on it, and `migrate` does
/// not bring it back. (Not `published_at`: a delivery log has a column of that name.)
pub fn consume_only_hint(message: &str) -> Option<String> {
    message.contains("column \"processing_at\"").then(|| {
        "the table has no processing_at: it is consume-only (the storage move dropped processing_at and published_at); run with outbox.storage: consume and relay.reclaim_stale_after: null, as the move asks of every relay".into()
    })
}

pub const CHECKPOINT_COLUMNS: &[ColumnSpec] = &[
    col("node_key", "node_key TEXT NOT NULL", "text", true),
    col("hlc", "hlc BIGINT NOT NULL", "bigint", true),
];

pub const LOG_COLUMNS: &[ColumnSpec] = &[
    col("id", "id UUID NOT NULL", "uuid", true),
    col("outbox_route", "outbox_route TEXT NOT NULL", "text", true),
    col("event_id", "event_id UUID NOT NULL", "uuid", true),
    col("tenant_id", "tenant_id UUID", "uuid", false),
    col(
        "published_at",
        "published_at TIMESTAMPTZ NOT NULL",
        "timestamp with time zone",
        true,
    ),
];

/// The HLC claim index's columns (the claim's order with HLC ordering).
pub const HLC_CLAIM_ORDER: &[&str] = &[
    "outbox_route",
    "status",
    "available_at",
    "hlc",
    "created_at",
    "id",
];

/// The claim index's columns, on PostgreSQL and MongoDB alike (`doctor` looks for them).
pub const CLAIM_INDEX_COLUMNS: &[&str] = &["outbox_route", "status", "available_at", "created_at"];

/// The claim's order with its tie-breaker, as the strict claim index carries it.
const CLAIM_ORDER: &[&str] = &["outbox_route", "status", "available_at", "created_at", "id"];

/// The replay index's columns: delivered rows in claim order, per route.
const REPLAY_ORDER: &[&str] = &["outbox_route", "created_at", "id"];
const REPLAY_HLC_ORDER: &[&str] = &["outbox_route", "hlc", "created_at", "id"];

/// An index the schema wants, by name, as `pg_get_indexdef` would describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSpec {
    pub name: Ident,
    pub columns: &'static [&'static str],
    /// Non-key columns the index carries (`INCLUDE`).
    pub include: &'static [&'static str],
    /// A partial index's predicate as `pg_get_indexdef` writes it.
    pub predicate: Option<&'static str>,
    /// The statement that creates it (plain, as printed by `schema print`).
    pub create: Statement,
}

impl IndexSpec {
    /// What follows `USING` in `pg_get_indexdef` for this index.
    pub fn expected_def(&self) -> String {
        let mut def = format!("btree ({})", self.columns.join(", "));
        if !self.include.is_empty() {
            def.push_str(&format!(" INCLUDE ({})", self.include.join(", ")));
        }
        if let Some(p) = self.predicate {
            def.push_str(&format!(" WHERE {p}"));
        }
        def
    }
}

/// Which optional parts `schema print --with` adds on top of the configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras {
    pub hlc: bool,
    pub traceparent: bool,
    pub checkpoint: bool,
    pub delivery_log: bool,
    pub replay: bool,
    pub wake: bool,
}

/// The PostgreSQL objects for one outbox (one tenant's, for a per-tenant relation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgSchema {
    pub outbox: QualifiedName,
    pub storage: Storage,
    pub traceparent: bool,
    pub hlc: bool,
    pub strict_key_order: bool,
    /// The replay index (`outbox.replay_index`, retain storage).
    pub replay: bool,
    /// The insert trigger that wakes relays (`relay.wake: notify`).
    pub wake: bool,
    /// The queue's autovacuum settings (`outbox.autovacuum: queue`).
    pub queue_autovacuum: bool,
    pub checkpoint: Option<QualifiedName>,
    pub delivery_log: Option<QualifiedName>,
    /// The relay registry (`outbox.registry`); its pauses table is named after it.
    pub registry: Option<QualifiedName>,
    /// Tables of `postgres-table:` destinations configured for the relay.
    pub sinks: Vec<QualifiedName>,
}

impl PgSchema {
    /// The schemas a configuration asks for, one per tenant when the relation is per tenant.
    pub fn from_config(config: &Config, extras: Extras) -> Result<Vec<PgSchema>, crate::Error> {
        let Target::Postgres {
            relation,
            delivery_log,
            hlc_checkpoint,
            registry,
        } = &config.outbox.target
        else {
            return Err(crate::Error::NotConfigured(
                "the configured backend is MongoDB, not PostgreSQL",
            ));
        };
        let tenants: Vec<Option<Uuid>> = config.relation_tenants()?;
        let mut out = Vec::new();
        for (n, tenant) in tenants.into_iter().enumerate() {
            // Objects shared by every tenant are planned once, with the first tenant's outbox.
            let first = n == 0;
            let outbox = relation
                .resolve(tenant)
                .map_err(crate::config::ConfigError::from)?;
            let delivery_log = match delivery_log {
                Some(log) if !first && !log.is_per_tenant() => None,
                Some(log) => Some(
                    log.resolve(tenant)
                        .map_err(crate::config::ConfigError::from)?,
                ),
                None if extras.delivery_log => Some(
                    outbox
                        .sibling("delivery log", "_delivered")
                        .map_err(crate::config::ConfigError::from)?,
                ),
                None => None,
            };
            let checkpoint = match hlc_checkpoint {
                _ if !first => None,
                Some(c) => Some(c.clone()),
                // the node's one checkpoint has no tenant's schema to sit beside
                None if extras.checkpoint && relation.schema_is_per_tenant() => {
                    return Err(crate::Error::Usage("the relation's schema is per tenant ({tenant}): name the node's HLC checkpoint with outbox.hlc_checkpoint (or --hlc-checkpoint SCHEMA.TABLE)".into()));
                }
                None if extras.checkpoint => Some(QualifiedName::new(
                    outbox.schema.clone(),
                    Ident::new("hlc checkpoint", "hlc_checkpoint").expect("valid"),
                )),
                None => None,
            };
            let sinks = config
                .relay
                .routes
                .values()
                .filter_map(|r| match r.to.url() {
                    Some(crate::destination::DestinationUrl::PostgresTable(t)) => Some(t.clone()),
                    _ => None,
                })
                .filter(|_| first)
                .collect();
            let schema = PgSchema {
                sinks,
                outbox,
                storage: config.outbox.storage,
                traceparent: config.outbox.propagate_trace || extras.traceparent,
                hlc: config.outbox.hlc_ordering || extras.hlc,
                strict_key_order: config.relay.key_order == KeyOrder::Strict,
                replay: (config.outbox.replay_index || extras.replay)
                    && config.outbox.storage == Storage::Retain,
                wake: config.relay.wake == crate::model::Wake::Notify || extras.wake,
                queue_autovacuum: config.outbox.autovacuum == crate::vacuum::Autovacuum::Queue,
                checkpoint,
                delivery_log,
                registry: registry.clone().filter(|_| first),
            };
            schema
                .check_names()
                .map_err(crate::config::ConfigError::from)?;
            out.push(schema);
        }
        Ok(out)
    }

    /// Derived names must fit PostgreSQL's 63 bytes, or the server would truncate them.
    fn check_names(&self) -> Result<(), NameError> {
        self.indexes()?;
        for sink in &self.sinks {
            sink_replay_idx(sink)?;
        }
        (self.registry_names().transpose()).map_err(|e| NameError::Derived {
            error: e.to_string(),
            hint: crate::config::REGISTRY_HINT,
        })?;
        self.wake_trigger()?;
        if let Some(log) = &self.delivery_log {
            log.name.with_suffix("delivery log index", "_event_idx")?;
            log.name
                .with_suffix("delivery log partition", "_20000101")?;
        }
        Ok(())
    }

    /// The wake trigger's name, which is also its `NOTIFY` channel (`<table>_wake`, within
    /// PostgreSQL's 63 bytes).
    pub fn wake_trigger(&self) -> Result<Ident, NameError> {
        self.outbox.name.with_suffix("wake trigger", "_wake")
    }

    /// `ALTER TABLE … SET (…)` with the queue's autovacuum settings (`outbox.autovacuum: queue`),
    /// each commented with why.
    pub fn queue_autovacuum_statement(&self) -> Statement {
        let body = crate::vacuum::QUEUE_SETTINGS
            .iter()
            .map(|(k, v, _)| format!("    {k} = {v}"))
            .collect::<Vec<_>>()
            .join(",\n");
        let why = crate::vacuum::QUEUE_SETTINGS
            .iter()
            .map(|(k, _, why)| format!("{k}: {why}"))
            .collect::<Vec<_>>()
            .join("\n");
        Statement::new(format!("ALTER TABLE {} SET (\n{body}\n);", self.outbox)).with_comment(
            format!("outbox.autovacuum: queue: vacuum this table as a queue\n{why}"),
        )
    }

    /// The trigger function `relay.wake: notify` adds (one per schema, shared by its outboxes).
    pub fn wake_function(&self) -> QualifiedName {
        QualifiedName::new(
            self.outbox.schema.clone(),
            Ident::new("wake function", "outboxctl_wake").expect("valid"),
        )
    }

    /// What the wake statements create, as a plan's summary names it.
    pub fn wake_objects(&self) -> String {
        let trigger = self.wake_trigger().expect("checked in from_config");
        format!(
            "the wake function {} and trigger {}",
            self.wake_function().plain(),
            trigger.name()
        )
    }

    /// The function and trigger `relay.wake: notify` adds.
    pub fn wake_statements(&self) -> Vec<Statement> {
        let trigger = self.wake_trigger().expect("checked in from_config");
        let function = self.wake_function();
        render::render(
            render::WAKE_SQL,
            &[
                ("outbox", (&self.outbox).into()),
                ("wake_fn", (&function).into()),
                ("wake_trigger", (&trigger).into()),
            ],
        )
    }

    /// The replay index's name (whether or not this schema wants it).
    pub fn replay_idx(&self) -> Result<Ident, NameError> {
        self.outbox.name.with_suffix("replay index", "_replay_idx")
    }

    pub fn claim_idx(&self) -> Result<Ident, NameError> {
        self.outbox.name.with_suffix("claim index", "_claim_idx")
    }

    /// The outbox's indexes (besides its primary key and unique constraint).
    pub fn indexes(&self) -> Result<Vec<IndexSpec>, NameError> {
        let t = &self.outbox;
        let claim = self.claim_idx()?;
        let base = render::render(
            render::OUTBOX_SQL,
            &[("outbox", t.into()), ("claim_idx", (&claim).into())],
        );
        let mut out = vec![IndexSpec {
            name: claim,
            columns: CLAIM_INDEX_COLUMNS,
            include: &[],
            predicate: None,
            create: base[1].clone(),
        }];
        if self.hlc {
            let name = t.name.with_suffix("hlc claim index", "_claim_hlc_idx")?;
            let stmts = render::render(
                render::HLC_SQL,
                &[("outbox", t.into()), ("claim_hlc_idx", (&name).into())],
            );
            out.push(IndexSpec {
                name,
                columns: HLC_CLAIM_ORDER,
                include: &[],
                predicate: None,
                create: stmts[1].clone(),
            });
        }
        if self.replay {
            let name = self.replay_idx()?;
            let (columns, order_sql) = if self.hlc {
                (REPLAY_HLC_ORDER, "outbox_route, hlc, created_at, id")
            } else {
                (REPLAY_ORDER, "outbox_route, created_at, id")
            };
            let stmts = render::render(
                render::REPLAY_SQL,
                &[
                    ("outbox", t.into()),
                    ("replay_idx", (&name).into()),
                    ("replay_order", order_sql.into()),
                ],
            );
            // before the strict indexes, which `print` takes from the end
            out.push(IndexSpec {
                name,
                columns,
                include: &[],
                predicate: Some("(status = 'published'::text)"),
                create: stmts[0].clone(),
            });
        }
        if self.strict_key_order {
            let name = t.name.with_suffix("key order index", "_key_idx")?;
            let claim = t
                .name
                .with_suffix("strict claim index", "_strict_claim_idx")?;
            // the claim's index order: with HLC it is the HLC claim index's
            let (order, order_sql) = if self.hlc {
                (
                    HLC_CLAIM_ORDER,
                    "outbox_route, status, available_at, hlc, created_at, id",
                )
            } else {
                (
                    CLAIM_ORDER,
                    "outbox_route, status, available_at, created_at, id",
                )
            };
            let stmts = render::render(
                render::KEY_ORDER_SQL,
                &[
                    ("outbox", t.into()),
                    ("key_idx", (&name).into()),
                    ("strict_claim_idx", (&claim).into()),
                    ("strict_claim_order", order_sql.into()),
                ],
            );
            out.push(IndexSpec {
                name,
                columns: &["outbox_route", "ordering_key", "created_at"],
                include: &[],
                predicate: Some("(status <> 'published'::text)"),
                create: stmts[0].clone(),
            });
            out.push(IndexSpec {
                name: claim,
                columns: order,
                include: &["ordering_key", "tenant_id"],
                predicate: None,
                create: stmts[1].clone(),
            });
        }
        Ok(out)
    }

    /// `CREATE TABLE` for the outbox, as the specification writes it.
    pub fn create_outbox_table(&self) -> Statement {
        let claim = self.claim_idx().expect("checked in from_config");
        render::render(
            render::OUTBOX_SQL,
            &[
                ("outbox", (&self.outbox).into()),
                ("claim_idx", (&claim).into()),
            ],
        )
        .remove(0)
    }

    pub fn add_columns(&self, columns: &[&ColumnSpec]) -> Statement {
        let ddl: Vec<&'static str> = columns.iter().map(|c| c.ddl).collect();
        render::add_columns(&self.outbox, &ddl)
    }

    pub fn checkpoint_statements(&self) -> Option<Vec<Statement>> {
        let c = self.checkpoint.as_ref()?;
        Some(render::render(
            render::CHECKPOINT_SQL,
            &[("checkpoint", c.into())],
        ))
    }

    pub fn log_names(&self) -> Option<(QualifiedName, Ident, QualifiedName)> {
        let log = self.delivery_log.as_ref()?;
        let event_idx = log
            .name
            .with_suffix("delivery log index", "_event_idx")
            .ok()?;
        let default = log.sibling("default partition", "_default").ok()?;
        Some((log.clone(), event_idx, default))
    }

    /// `CREATE TABLE` (partitioned), event index, default partition.
    pub fn delivery_log_statements(&self) -> Option<Vec<Statement>> {
        let (log, event_idx, default) = self.log_names()?;
        Some(render::render(
            render::DELIVERY_LOG_SQL,
            &[
                ("log", (&log).into()),
                ("log_event_idx", (&event_idx).into()),
                ("log_default", (&default).into()),
            ],
        ))
    }

    pub fn sink_statements(&self, sink: &QualifiedName) -> Vec<Statement> {
        let idx = sink_replay_idx(sink).expect("checked in from_config");
        render::render(
            render::SINK_SQL,
            &[("sink", sink.into()), ("sink_replay_idx", (&idx).into())],
        )
    }

    /// The whole schema as `schema print` writes it, a section per object: the
    /// specification's text, in its order (`join("\n")` of them is the script).
    pub fn sections(&self) -> Vec<String> {
        let mut sections: Vec<String> = Vec::new();
        let t = &self.outbox;
        let claim = self.claim_idx().expect("checked in from_config");
        sections.push(render::join(&render::render(
            render::OUTBOX_SQL,
            &[("outbox", t.into()), ("claim_idx", (&claim).into())],
        )));
        if self.traceparent {
            sections.push(render::join(&render::render(
                render::TRACEPARENT_SQL,
                &[("outbox", t.into())],
            )));
        }
        let indexes = self.indexes().expect("checked in from_config");
        if self.hlc {
            let name = &indexes
                .iter()
                .find(|i| i.columns.contains(&"hlc"))
                .expect("hlc index")
                .name;
            sections.push(render::join(&render::render(
                render::HLC_SQL,
                &[("outbox", t.into()), ("claim_hlc_idx", name.into())],
            )));
        }
        if self.replay {
            let name = self.replay_idx().expect("checked in from_config");
            let index = indexes
                .iter()
                .find(|i| i.name == name)
                .expect("replay index");
            sections.push(render::join(std::slice::from_ref(&index.create)));
        }
        if self.strict_key_order {
            // the key order index and the strict claim index, pushed last
            let creates: Vec<Statement> = indexes[indexes.len() - 2..]
                .iter()
                .map(|i| i.create.clone())
                .collect();
            sections.push(render::join(&creates));
        }
        if self.wake {
            sections.push(render::join(&self.wake_statements()));
        }
        if let Some(stmts) = self.checkpoint_statements() {
            sections.push(render::join(&stmts));
        }
        if let Some(stmts) = self.delivery_log_statements() {
            sections.push(render::join(&stmts));
        }
        for sink in &self.sinks {
            sections.push(render::join(&self.sink_statements(sink)));
        }
        sections
    }
}

/// The index `replay --from postgres-table:` pages a destination table through.
pub fn sink_replay_idx(sink: &QualifiedName) -> Result<Ident, NameError> {
    sink.name.with_suffix("replay index", "_replay_idx")
}

/// What `pg_get_indexdef` shows (after `USING`) for a destination table's replay index.
pub const SINK_REPLAY_DEF: &str = "btree (outbox_route, published_at, event_id)";

/// The MongoDB objects for one outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MongoSchema {
    pub outbox: CollectionName,
    pub indexes: Vec<MongoIndexSpec>,
    pub checkpoint: Option<CollectionName>,
    /// The relay registry (`outbox.registry`); its pauses collection is named after it.
    pub registry: Option<CollectionName>,
}

impl MongoSchema {
    pub fn from_config(config: &Config, extras: Extras) -> Result<MongoSchema, crate::Error> {
        let Target::Mongo {
            collection,
            hlc_checkpoint,
            registry,
        } = &config.outbox.target
        else {
            return Err(crate::Error::NotConfigured(
                "the configured backend is PostgreSQL, not MongoDB",
            ));
        };
        let hlc = config.outbox.hlc_ordering || extras.hlc;
        let mut indexes = render::mongo_outbox_indexes();
        if hlc {
            indexes.extend(render::mongo_hlc_indexes());
        }
        indexes.extend(render::mongo_claim_order_indexes(hlc));
        if config.relay.key_order == KeyOrder::Strict {
            indexes.extend(render::mongo_key_order_indexes(hlc));
        }
        if config.outbox.replay_index || extras.replay {
            // the same keys as the claim order's: one index serves both
            for spec in render::mongo_replay_indexes(hlc) {
                if !indexes.iter().any(|i| i.keys == spec.keys) {
                    indexes.push(spec);
                }
            }
        }
        let checkpoint = match hlc_checkpoint {
            Some(c) => Some(c.clone()),
            None if extras.checkpoint => Some(
                CollectionName::new("hlc checkpoint", &collection.db, "hlc_checkpoint")
                    .map_err(crate::config::ConfigError::from)?,
            ),
            None => None,
        };
        Ok(MongoSchema {
            outbox: collection.clone(),
            indexes,
            checkpoint,
            registry: registry.clone(),
        })
    }

    pub fn use_db(&self) -> Statement {
        Statement::new(format!(
            "db = db.getSiblingDB({});",
            render::js_string(&self.outbox.db)
        ))
    }

    pub fn create_index(&self, spec: &MongoIndexSpec) -> Statement {
        render::mongo_create_index(&self.outbox, spec)
    }

    /// The mongosh script `schema print --backend mongo` writes.
    pub fn print(&self) -> String {
        let mut stmts = vec![self.use_db().with_comment(format!(
            "// outbox collection {} (outboxctl schema print)",
            self.outbox
        ))];
        stmts.extend(self.indexes.iter().map(|s| self.create_index(s)));
        let mut out = render::join_js(&stmts);
        if let Some(c) = &self.checkpoint {
            out.push_str(&format!(
                "// hlc checkpoint {c}: {{ _id: <node_key>, hlc: <packed HlcTimestamp> }} — created on first advance; needs no index\n"
            ));
        }
        out
    }
}
