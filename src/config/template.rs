//! The commented `outboxctl.yaml` that `outboxctl init` writes: every key shown, the chosen
//! values set, and the text checked the way every command will read it before it is written.

use std::path::{Path, PathBuf};

use super::{Config, ConfigError, FileConfig, Target};
use crate::dburl::{Backend, DatabaseUrl};
use crate::model::{KeyOrder, Storage};
use crate::target::{Ident, QualifiedName, RelationSpec};

/// The database URL written when none is given: the local server's.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// What goes into the file. No `Debug`: the database URL and a route's `to:` are as given,
/// passwords and all.
#[derive(Clone)]
pub struct Answers {
    pub database_url: String,
    pub backend: Backend,
    pub outbox: String,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub key_order: KeyOrder,
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
                // as SQL text: a name that needs quotes keeps them
                relation.sql_text(),
                delivery_log.as_ref().map(RelationSpec::sql_text),
                hlc_checkpoint.as_ref().map(QualifiedName::to_string),
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
            database_url: c
                .database_url
                .as_ref()
                .map_or_else(|| DEFAULT_URL.to_owned(), |u| u.expose().to_owned()),
            backend: c.backend,
            outbox,
            storage: c.outbox.storage,
            hlc_ordering: c.outbox.hlc_ordering,
            propagate_trace: c.outbox.propagate_trace,
            delivery_log,
            hlc_checkpoint,
            key_order: c.relay.key_order,
            route,
        }
    }

    /// The database URL as offered on a terminal: its password masked (a screen, a scrollback,
    /// a shared session).
    pub fn url_offered(&self) -> String {
        crate::dburl::mask(&self.database_url)
    }

    /// A database URL answered: its backend, and on another backend than the configuration's
    /// an outbox name that suits it (`c`'s own otherwise). MongoDB keeps retain storage. The
    /// URL [`Answers::url_offered`] offered, taken as it was, is the one known, password and all.
    pub fn set_url(&mut self, c: &Config, url: String) -> Result<(), ConfigError> {
        let url = if url == self.url_offered() {
            self.database_url.clone()
        } else {
            url
        };
        self.backend = crate::dburl::DatabaseUrl::parse(&url)?.backend();
        if self.backend != c.backend {
            self.outbox = "app.outbox".into();
        }
        if self.backend == Backend::Mongo {
            self.storage = Storage::Retain;
        }
        self.database_url = url;
        Ok(())
    }

    /// What a file written from `c` without a database URL is told: that it has the local
    /// default.
    pub fn url_note(c: &Config) -> Option<String> {
        c.database_url.is_none().then(|| format!("no database URL was given: the file has {DEFAULT_URL}; edit its database_url (or set OUTBOXCTL_DATABASE_URL)"))
    }

    /// Whether a database URL answered on a terminal can be taken: the one offered (its
    /// password masked) as it was, or a URL that parses, is not refused, and whose password is
    /// not the mask (a URL offered, edited, and taken with `****` for its password would be
    /// written as such).
    pub fn check_url(&self, answer: &str) -> Result<(), String> {
        if answer == self.url_offered() {
            return Ok(());
        }
        let url = DatabaseUrl::parse(answer).map_err(|e| e.to_string())?;
        if url.password() == Some("****") {
            return Err("its password reads ****, the masked one: type the URL whole, or press Enter to keep the one offered".into());
        }
        url.pg_refusal().map_or(Ok(()), Err)
    }

    /// Whether an outbox name answered on a terminal can be taken on the URL's backend.
    pub fn check_outbox(&self, answer: &str) -> Result<(), String> {
        let parsed = match self.backend {
            Backend::Postgres => RelationSpec::parse("outbox", answer).map(|_| ()),
            Backend::Mongo => crate::target::CollectionName::parse("outbox", answer).map(|_| ()),
        };
        parsed.map_err(|e| e.to_string())
    }

    /// What the outbox's name is asked as.
    pub fn outbox_question(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => "outbox table (schema.table)",
            Backend::Mongo => "outbox collection (db.collection)",
        }
    }

    /// The optional features offered: the delivery log only under consume storage.
    pub fn features(&self) -> Vec<&'static str> {
        let log = Some("delivery_log").filter(|_| self.storage == Storage::Consume);
        ["hlc_ordering", "propagate_trace", "hlc_checkpoint"]
            .into_iter()
            .chain(log)
            .collect()
    }

    /// The features chosen among [`Answers::features`], by name.
    pub fn choose(&mut self, chosen: &[&str]) {
        let has = |name: &str| chosen.contains(&name);
        self.hlc_ordering = has("hlc_ordering");
        self.propagate_trace = has("propagate_trace");
        self.name_optional_tables(has("hlc_checkpoint"), has("delivery_log"));
    }

    /// The names the optional tables take beside the outbox: `SCHEMA.hlc_checkpoint` and
    /// `OUTBOX_delivered` (on MongoDB `DB.hlc_checkpoint`), when chosen. Made from the outbox's
    /// parsed name, so a quoted one stays quoted; an outbox name that does not parse is left
    /// for [`Answers::write`] to refuse.
    pub fn name_optional_tables(&mut self, hlc_checkpoint: bool, delivery_log: bool) {
        let (hlc, log) = self.optional_names();
        self.hlc_checkpoint = hlc.filter(|_| hlc_checkpoint);
        self.delivery_log = log.filter(|_| delivery_log);
    }

    /// The names of the checkpoint and (PostgreSQL) the delivery log beside the outbox.
    fn optional_names(&self) -> (Option<String>, Option<String>) {
        let relation = (self.backend == Backend::Postgres)
            .then(|| RelationSpec::parse("outbox relation", &self.outbox).ok())
            .flatten();
        let checkpoint = |schema: &str| {
            let schema = Ident::new("hlc_checkpoint", schema).ok()?;
            let table = Ident::new("hlc_checkpoint", "hlc_checkpoint").ok()?;
            Some(QualifiedName::new(schema, table).to_string())
        };
        match &relation {
            Some(r) => (
                checkpoint(r.fixed_schema().unwrap_or("app")),
                Some(r.with_table_suffix("_delivered").sql_text()),
            ),
            None => {
                let db = self.outbox.split_once('.').map_or("app", |(d, _)| d);
                (Some(format!("{db}.hlc_checkpoint")), None)
            }
        }
    }

    /// The file's text: every key commented, the chosen values set.
    pub fn render(&self) -> String {
        let a = self;
        let mut out = String::from(
            "# outboxctl configuration (written by `outboxctl init`). See docs/configuration.md for every key.\n\
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
        // the tables not chosen are shown as they would be named, beside the outbox
        let (hlc, log) = a.optional_names();
        out.push_str(&match (&a.delivery_log, log) {
            (Some(l), _) => format!(
                "  delivery_log: {}   # consume storage: what went out, partitioned by day\n",
                yaml_str(l)
            ),
            (None, Some(l)) => format!(
                "  # delivery_log: {}   # consume storage only\n",
                yaml_str(&l)
            ),
            (None, None) => String::new(),
        });
        out.push_str(&match (&a.hlc_checkpoint, hlc) {
            (Some(c), _) => format!("  hlc_checkpoint: {}\n", yaml_str(c)),
            (None, Some(c)) => format!("  # hlc_checkpoint: {}\n", yaml_str(&c)),
            (None, None) => String::new(),
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
            "  # interval: 1s\n  # max_claim_rows: 100\n  # pass_deadline: 5s\n  # pass_statement_timeout: 1s\n  # reclaim_stale_after: 5m   # null turns reclaim off\n  # max_attempts: 5\n  # retry_base_delay: 1s\n  # retry_max_backoff: 5m\n  # shutdown_drain_timeout: 5s\n",
        );
        out.push_str(match a.key_order {
            KeyOrder::Strict => {
                "  key_order: strict             # a key's rows one at a time, in order\n"
            }
            KeyOrder::BestEffort => "  # key_order: best-effort     # or strict\n",
        });
        out.push_str(
            "  # prepared_statements: false # true: named statements (direct connections, pgbouncer 1.21+)\n  # claim_ahead: false         # retain, best-effort: claim the next batch on a second connection meanwhile (default: as prepared_statements)\n\npartitions:\n  # ahead_days: 7\n  # keep_days: 30\n  # lock_timeout: 200ms\n",
        );
        out
    }

    /// Where `init` writes: `--path`, else the file `--config` or `OUTBOXCTL_CONFIG` names (the
    /// one every later command reads), else `./outboxctl.yaml`. Refused (before any question)
    /// when that file exists and `overwrite` is not set.
    pub fn target(
        path: Option<&Path>,
        config: &Config,
        overwrite: bool,
    ) -> Result<PathBuf, ConfigError> {
        let path = (path.map(Path::to_owned).or_else(|| config.source.clone()))
            .unwrap_or_else(|| super::DEFAULT_CONFIG_FILE.into());
        match path.exists() && !overwrite {
            true => Err(ConfigError::Exists {
                path: path.display().to_string(),
            }),
            false => Ok(path),
        }
    }

    /// Checks the text the way every command will read it, and with `check` (the relay's own
    /// look at its routes: a NATS subject with a space passed here and stopped the relay),
    /// then writes it to `path` (a new file unless `overwrite`); returns the configuration the
    /// file gives. A file holding a password (the database's, or in the route's URL) is
    /// readable by its owner only.
    pub fn write(
        &self,
        path: &Path,
        overwrite: bool,
        check: impl FnOnce(&Config) -> Result<(), ConfigError>,
    ) -> Result<Config, ConfigError> {
        use std::io::Write;
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let text = self.render();
        let file = FileConfig::parse(&path.display().to_string(), &text)?;
        let config = Config::resolve(file, Some(path.to_owned()), &Default::default(), &|_| None)?;
        check(&config)?;
        // what every command then refuses before connecting: refused here, nothing written
        if let Some(url) = config.database_url.as_ref() {
            if let Some(cause) = url.pg_refusal() {
                return Err(ConfigError::Invalid(format!("database URL {url}: {cause}")));
            }
        }
        // the database's password, or a route URL's credentials (what masking would hide)
        let masked = |url: &str| crate::dburl::mask(url) != url;
        let secret = DatabaseUrl::parse(&self.database_url).is_ok_and(|u| u.password().is_some())
            || masked(&self.database_url)
            || (self.route.as_ref()).is_some_and(|(_, to)| masked(to));
        let mode = if secret { 0o600 } else { 0o644 };
        let mut open = std::fs::OpenOptions::new();
        open.write(true).mode(mode);
        if overwrite {
            open.create(true).truncate(true);
        } else {
            open.create_new(true);
        }
        let written = open.open(path).and_then(|mut f| {
            if secret {
                // an existing file keeps its mode when overwritten
                f.set_permissions(std::fs::Permissions::from_mode(mode))?;
            }
            f.write_all(text.as_bytes())
        });
        written.map_err(|source| ConfigError::Write {
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

    /// The URL is offered with its password masked; taken as offered it keeps the password,
    /// and another answer is taken as given.
    #[test]
    fn the_url_is_offered_masked_and_kept_when_taken_as_offered() {
        let c = resolved(FileConfig::default());
        let mut a = Answers::of(&c, None);
        a.database_url = "postgres://app:s3cret@db/app".into();
        assert_eq!(a.url_offered(), "postgres://app:****@db/app");
        a.set_url(&c, a.url_offered()).unwrap();
        assert_eq!(a.database_url, "postgres://app:s3cret@db/app");
        a.set_url(&c, "postgres://app:other@db/app".into()).unwrap();
        assert_eq!(a.database_url, "postgres://app:other@db/app");
    }

    /// On a terminal the URL offered (masked) is taken as it was; one edited around its mask
    /// (`****` for the password) is asked again rather than written with the mask, as is one
    /// that does not parse, and an outbox name is checked on the URL's backend as it is answered.
    #[test]
    fn answers_are_checked_as_they_come() {
        let c = resolved(FileConfig::default());
        let mut a = Answers::of(&c, None);
        a.database_url = "postgres://app:s3cret@db:5433/app".into();
        assert_eq!(a.check_url("postgres://app:****@db:5433/app"), Ok(()));
        let edited = a.check_url("postgres://app:****@db:5432/app").unwrap_err();
        assert!(edited.contains("****, the masked one"), "{edited}");
        assert!(a.check_url("postgres://app:new@db:5432/app").is_ok());
        assert!(a.check_url("nonsense").is_err());
        assert!(a.check_outbox("app.outbox").is_ok());
        assert!(a.check_outbox("a.b.c").is_err());
        a.backend = Backend::Mongo;
        assert!(a.check_outbox("app").is_err());
        assert!(a.check_outbox("app.outbox").is_ok());
    }

    /// The tables not chosen are still shown, commented, as they would be named beside the
    /// outbox (they once read `app.…` whatever the outbox's schema).
    #[test]
    fn the_tables_not_chosen_are_suggested_beside_the_outbox() {
        let mut a = Answers::of(&resolved(FileConfig::default()), None);
        a.outbox = r#"billing."Order-Events""#.into();
        a.name_optional_tables(false, false);
        let text = a.render();
        assert!(!text.contains("app."), "{text}");
        for line in [
            r#"  # delivery_log: "billing.\"Order-Events_delivered\"""#,
            r#"  # hlc_checkpoint: "billing.hlc_checkpoint""#,
        ] {
            assert!(text.contains(line), "{line}: {text}");
        }
    }

    /// Names that need quotes keep them through the file, the optional tables are named from
    /// the outbox's parsed name (a bare `outbox` is `public.outbox`), and strict key order is
    /// written.
    #[test]
    fn quoted_names_and_strict_order_load_back_as_answered() {
        let mut a = Answers::of(&resolved(FileConfig::default()), None);
        a.outbox = r#"App."Order-Events""#.into();
        a.storage = Storage::Consume;
        a.key_order = KeyOrder::Strict;
        a.name_optional_tables(true, true);
        assert_eq!(a.hlc_checkpoint.as_deref(), Some("app.hlc_checkpoint"));
        assert_eq!(
            a.delivery_log.as_deref(),
            Some(r#"app."Order-Events_delivered""#)
        );
        let c = loaded(&a);
        let Target::Postgres { relation, .. } = &c.outbox.target else {
            panic!("a PostgreSQL outbox");
        };
        assert_eq!(relation.template(), "app.Order-Events");
        assert_eq!(c.relay.key_order, KeyOrder::Strict);
        let back = Answers::of(&c, None);
        assert_eq!(back.outbox, r#"app."Order-Events""#);
        a.outbox = "outbox".into();
        a.name_optional_tables(true, false);
        assert_eq!(a.hlc_checkpoint.as_deref(), Some("public.hlc_checkpoint"));
        assert_eq!(a.delivery_log, None);
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
