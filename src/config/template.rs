//! The commented `outboxctl.yaml` that `outboxctl init` writes: every key shown, the chosen
//! values set, and the text checked the way every command will read it before it is written.

use std::path::Path;

use super::{Config, ConfigError, FileConfig, Target};
use crate::dburl::Backend;
use crate::model::Storage;

/// What goes into the file.
#[derive(Debug, Clone)]
pub struct Answers {
    pub database_url: String,
    pub backend: Backend,
    pub outbox: String,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub route: Option<(String, String)>,
}

impl Answers {
    /// The answers a configuration already gives (its defaults where it says nothing), with a
    /// first route if one is named.
    pub fn of(c: &Config, route: Option<(String, String)>) -> Self {
        let (outbox, delivery_log, hlc_checkpoint) = match &c.outbox.target {
            Target::Postgres {
                relation,
                delivery_log,
                hlc_checkpoint,
                ..
            } => (
                relation.template(),
                delivery_log.as_ref().map(|l| l.template()),
                hlc_checkpoint.as_ref().map(|q| q.plain()),
            ),
            Target::Mongo {
                collection,
                hlc_checkpoint,
                ..
            } => (
                collection.to_string(),
                None,
                hlc_checkpoint.as_ref().map(|q| q.to_string()),
            ),
        };
        Answers {
            database_url: c.database_url.as_ref().map_or_else(
                || "postgres://postgres@127.0.0.1:5432/postgres".to_owned(),
                |u| u.expose().to_owned(),
            ),
            backend: c.backend,
            outbox,
            storage: c.outbox.storage,
            hlc_ordering: c.outbox.hlc_ordering,
            propagate_trace: c.outbox.propagate_trace,
            delivery_log,
            hlc_checkpoint,
            route,
        }
    }

    /// The names the optional tables take beside the outbox: `SCHEMA.hlc_checkpoint` and
    /// `OUTBOX_delivered`, when chosen.
    pub fn name_optional_tables(&mut self, hlc_checkpoint: bool, delivery_log: bool) {
        let base = self
            .outbox
            .rsplit_once('.')
            .map_or("app".to_owned(), |(s, _)| s.to_owned());
        self.hlc_checkpoint = hlc_checkpoint.then(|| format!("{base}.hlc_checkpoint"));
        self.delivery_log = delivery_log.then(|| format!("{}_delivered", self.outbox));
    }

    /// The file's text: every key commented, the chosen values set.
    pub fn render(&self) -> String {
        let a = self;
        let mut out = String::from(
            "# outboxctl configuration (written by `outboxctl init`). See README.md for every key.\n\
             # Precedence: flag > environment (OUTBOXCTL_*) > this file > default.\n",
        );
        out.push_str(&format!(
            "database_url: {}   # or set OUTBOXCTL_DATABASE_URL and drop this line\n\noutbox:\n",
            yaml_str(&a.database_url)
        ));
        let outbox = yaml_str(&a.outbox);
        out.push_str(&match a.backend {
            Backend::Postgres => format!(
                "  relation: {outbox}        # schema.table\n  storage: {}                 # retain | consume\n",
                a.storage
            ),
            Backend::Mongo => format!(
                "  collection: {outbox}      # db.collection\n  storage: retain                 # MongoDB keeps retain storage\n"
            ),
        });
        out.push_str(&format!(
            "  hlc_ordering: {}            # claim in Hybrid Logical Clock order\n  propagate_trace: {}         # store and forward W3C traceparent\n",
            a.hlc_ordering, a.propagate_trace
        ));
        out.push_str(&match &a.delivery_log {
            Some(l) => format!(
                "  delivery_log: {}   # consume storage: what went out, partitioned by day\n",
                yaml_str(l)
            ),
            None => "  # delivery_log: app.outbox_delivered   # consume storage only\n".into(),
        });
        out.push_str(&match &a.hlc_checkpoint {
            Some(c) => format!("  hlc_checkpoint: {}\n", yaml_str(c)),
            None => "  # hlc_checkpoint: app.hlc_checkpoint\n".into(),
        });
        out.push_str("  # tenant_aware: false\n  # tenants: []\n");
        if a.storage == Storage::Consume {
            out.push_str("  # autovacuum: queue        # migrate gives the table autovacuum settings for a queue\n");
        }
        out.push_str("\nrelay:\n");
        match &a.route {
            Some((name, to)) => out.push_str(&format!("  routes:\n    {}:\n      to: {}\n      # channel: {name}\n", yaml_str(name), yaml_str(to))),
            None => out.push_str("  routes: {}\n  #   orders:\n  #     to: \"nats://127.0.0.1:4222\"\n  #     channel: orders.events\n"),
        }
        out.push_str(
            "  # interval: 1s\n  # max_claim_rows: 100\n  # pass_deadline: 5s\n  # pass_statement_timeout: 1s\n  # reclaim_stale_after: 5m   # null turns reclaim off\n  # max_attempts: 5\n  # retry_base_delay: 1s\n  # retry_max_backoff: 5m\n  # shutdown_drain_timeout: 5s\n  # key_order: best-effort     # or strict\n  # prepared_statements: false # true: named statements (direct connections, pgbouncer 1.21+)\n\npartitions:\n  # ahead_days: 7\n  # keep_days: 30\n  # lock_timeout: 200ms\n",
        );
        out
    }

    /// Checks the text the way every command will read it, then writes it to `path`; returns
    /// the configuration the file gives.
    pub fn write(&self, path: &Path) -> Result<Config, ConfigError> {
        let text = self.render();
        let file = FileConfig::parse(&path.display().to_string(), &text)?;
        let config = Config::resolve(file, Some(path.to_owned()), &Default::default(), &|_| None)?;
        std::fs::write(path, &text).map_err(|source| ConfigError::Write {
            path: path.display().to_string(),
            source,
        })?;
        Ok(config)
    }
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(file: FileConfig) -> Config {
        Config::resolve(file, None, &Default::default(), &|_| None).expect("the text resolves")
    }

    fn loaded(a: &Answers) -> Config {
        resolved(FileConfig::parse("outboxctl.yaml", &a.render()).expect("the text parses"))
    }

    #[test]
    fn what_init_writes_loads_back_as_answered() {
        let mut a = Answers::of(
            &loaded(&Answers::of(&resolved(FileConfig::default()), None)),
            None,
        );
        a.storage = Storage::Consume;
        a.hlc_ordering = true;
        a.name_optional_tables(true, true);
        a.route = Some(("orders".into(), "nats://127.0.0.1:4222".into()));
        let c = loaded(&a);
        assert_eq!(c.outbox.storage, Storage::Consume);
        assert!(c.outbox.hlc_ordering && !c.outbox.propagate_trace);
        let back = Answers::of(&c, None);
        assert_eq!(back.delivery_log.as_deref(), Some("app.outbox_delivered"));
        assert_eq!(back.hlc_checkpoint.as_deref(), Some("app.hlc_checkpoint"));
        assert_eq!(c.relay.routes.keys().collect::<Vec<_>>(), ["orders"]);
    }

    #[test]
    fn a_mongodb_file_names_a_collection_and_keeps_retain_storage() {
        let mut a = Answers::of(&resolved(FileConfig::default()), None);
        a.database_url = "mongodb://127.0.0.1:27017/?replicaSet=rs0".into();
        a.backend = Backend::Mongo;
        a.outbox = "shop.outbox".into();
        let text = a.render();
        assert!(text.contains("collection: \"shop.outbox\"") && !text.contains("relation:"));
        let c = loaded(&a);
        assert_eq!(
            (c.backend, c.outbox.storage),
            (Backend::Mongo, Storage::Retain)
        );
    }
}
