//! The replay source a backend hands out: the outbox's published rows on PostgreSQL or
//! MongoDB, a `postgres-table` destination's table, or a `file:` archive, opened as one
//! [`ReplaySource`] positioned after the plan's cursor. The replay itself (count, publish) is
//! [`crate::replay`]'s. No terminal code.

use uuid::Uuid;

use super::backend::Backend;
use super::mongo::replay::MongoPublished;
use super::postgres::replay::{Lane, PgPublished, PgTable};
use crate::Error;
use crate::replay::file::FileSource;
use crate::replay::request::{Origin, Plan};
use crate::replay::{Item, ReplayError, ReplaySource};
use crate::target::QualifiedName;

/// Any of the sources, opened.
pub enum Source {
    Published(PgPublished),
    Table(PgTable),
    Mongo(MongoPublished),
    File(Box<FileSource>),
}

impl ReplaySource for Source {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        match self {
            Source::Published(s) => s.next_page(limit).await,
            Source::Table(s) => s.next_page(limit).await,
            Source::Mongo(s) => s.next_page(limit).await,
            Source::File(s) => s.next_page(limit).await,
        }
    }
}

impl Backend<'_> {
    /// Opens the plan's source, positioned after its cursor.
    pub async fn replay_source(&self, plan: &Plan) -> Result<Source, Error> {
        let after = plan.after.as_ref();
        let selection = plan.selection.clone();
        match (&plan.origin, self) {
            (Origin::File(path), _) => Ok(Source::File(Box::new(FileSource::open(
                path, selection, after,
            )?))),
            (Origin::Table(table), Backend::Postgres(pg)) => Ok(Source::Table(
                PgTable::open(pg.connect().await?, table.clone(), selection, after).await?,
            )),
            (Origin::Table(_), Backend::Mongo(_)) => Err(ReplayError::Selection(
                "--from postgres-table: reads a table in the configured PostgreSQL database; this configuration names MongoDB",
            )
            .into()),
            (Origin::Published, Backend::Postgres(pg)) => {
                let per_tenant = pg.relation.is_per_tenant();
                let mut tables: Vec<(Option<Uuid>, QualifiedName)> = Vec::new();
                for t in pg.targets(selection.tenant)? {
                    if !tables.iter().any(|(_, table)| *table == t.table) {
                        tables.push((t.tenant.filter(|_| per_tenant), t.table));
                    }
                }
                let lanes = tables
                    .into_iter()
                    .flat_map(|(tenant, table)| {
                        selection.routes.iter().map(move |route| Lane {
                            tenant,
                            table: table.clone(),
                            route: route.clone(),
                        })
                    })
                    .collect();
                let opts = crate::store::postgres::PgStoreOptions::from_config(
                    pg.config,
                    pg.relation.clone(),
                    None,
                );
                // the index missing with the setting on: dropped by hand, or not migrated yet
                let fix = match pg.config.outbox.replay_index {
                    true => "run outboxctl migrate to add it (outbox.replay_index is on)",
                    false => "set outbox.replay_index: true and run outboxctl migrate (one index entry per delivered row)",
                };
                let conn = pg.connect().await?;
                Ok(Source::Published(
                    PgPublished::open(conn, opts, lanes, selection, fix, after).await?,
                ))
            }
            (Origin::Published, Backend::Mongo(m)) => {
                let opts = m.store_options();
                let client = m.connect().await?;
                m.require_outbox(&client).await?;
                Ok(Source::Mongo(
                    MongoPublished::open(&client, opts, selection, after).await?,
                ))
            }
            (Origin::Published | Origin::Table(_), Backend::Memory(_)) => Err(ReplayError::Selection(
                "the outbox in memory keeps no source to replay from: replay from a file: archive (--from file:PATH)",
            )
            .into()),
        }
    }
}
