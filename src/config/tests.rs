//! Resolution of file, environment and flags, and the errors bad configuration gets.

use super::*;
use crate::desturl::DestinationUrl;

fn no_env(_: &str) -> Option<String> {
    None
}

fn resolve(yaml: &str, o: &Overrides, env: Env<'_>) -> Result<Config, ConfigError> {
    Config::resolve(FileConfig::parse("test.yaml", yaml)?, None, o, env)
}

fn pg_relation(c: &Config) -> String {
    match &c.outbox.target {
        Target::Postgres { relation, .. } => relation.template(),
        Target::Mongo { collection, .. } => collection.to_string(),
    }
}

#[test]
fn defaults_without_anything() {
    let c = resolve("", &Overrides::default(), &no_env).unwrap();
    assert_eq!(c.backend, Backend::Postgres);
    assert_eq!(pg_relation(&c), "app.outbox");
    assert_eq!(c.outbox.storage, Storage::Retain);
    assert_eq!(c.relay.max_claim_rows, 100);
    assert_eq!(c.relay.reclaim_stale_after, Some(secs(300)));
    assert_eq!(c.relay.pass_statement_timeout, secs(1));
    assert_eq!(c.partitions.ahead_days, 7);
    assert!(c.database_url.is_none());
}

#[test]
fn file_beats_default() {
    let c = resolve(
        "outbox:\n  relation: shop.events\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    assert_eq!(pg_relation(&c), "shop.events");
}

#[test]
fn env_beats_file() {
    let env = |n: &str| (n == "OUTBOXCTL_RELATION").then(|| "env.outbox".to_owned());
    let c = resolve(
        "outbox:\n  relation: shop.events\n",
        &Overrides::default(),
        &env,
    )
    .unwrap();
    assert_eq!(pg_relation(&c), "env.outbox");
}

#[test]
fn flag_beats_env() {
    let env = |n: &str| (n == "OUTBOXCTL_RELATION").then(|| "env.outbox".to_owned());
    let o = Overrides {
        relation: Some("flag.outbox".into()),
        ..Default::default()
    };
    let c = resolve("outbox:\n  relation: shop.events\n", &o, &env).unwrap();
    assert_eq!(pg_relation(&c), "flag.outbox");
}

#[test]
fn database_url_precedence_puts_generic_env_below_file() {
    let env = |n: &str| match n {
        "DATABASE_URL" => Some("postgres://generic/db".to_owned()),
        "OUTBOXCTL_DATABASE_URL" => None,
        _ => None,
    };
    let file = "database_url: postgres://file/db\n";
    let c = resolve(file, &Overrides::default(), &env).unwrap();
    assert_eq!(c.database_url.unwrap().expose(), "postgres://file/db");
    let c = resolve("", &Overrides::default(), &env).unwrap();
    assert_eq!(c.database_url.unwrap().expose(), "postgres://generic/db");

    let env2 = |n: &str| match n {
        "DATABASE_URL" => Some("postgres://generic/db".to_owned()),
        "OUTBOXCTL_DATABASE_URL" => Some("postgres://specific/db".to_owned()),
        _ => None,
    };
    let c = resolve(file, &Overrides::default(), &env2).unwrap();
    assert_eq!(c.database_url.unwrap().expose(), "postgres://specific/db");
    let o = Overrides {
        database_url: Some("postgres://flag/db".into()),
        ..Default::default()
    };
    let c = resolve(file, &o, &env2).unwrap();
    assert_eq!(c.database_url.unwrap().expose(), "postgres://flag/db");
}

#[test]
fn backend_follows_the_url() {
    let o = Overrides {
        database_url: Some("mongodb://h/?replicaSet=rs0".into()),
        ..Default::default()
    };
    let c = resolve("outbox:\n  collection: shop.outbox\n", &o, &no_env).unwrap();
    assert_eq!(c.backend, Backend::Mongo);
    assert_eq!(pg_relation(&c), "shop.outbox");
}

#[test]
fn unknown_keys_are_named_with_their_line() {
    let err = resolve(
        "outbox:\n  relation: a.b\n  relaton: x\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("relaton"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    let err = resolve("relay:\n  intervall: 1s\n", &Overrides::default(), &no_env)
        .unwrap_err()
        .to_string();
    assert!(err.contains("intervall") && err.contains("line 2"), "{err}");
}

/// A bad value and a key written twice name the key's own path and line, not the section's
/// first (a duration's parse, and serde's check of a struct, ran after the scalar was read).
#[test]
fn a_bad_duration_and_a_key_written_twice_are_named_with_their_line() {
    let err = |yaml: &str| {
        resolve(yaml, &Overrides::default(), &no_env)
            .unwrap_err()
            .to_string()
    };
    let e = err("relay:\n  jitter: 0.1\n  max_claim_rows: 100\n  interval: 5x\n");
    assert!(
        e.contains("relay.interval: \"5x\" is not a duration") && e.contains("line 4"),
        "{e}"
    );
    let e = err("relay:\n  interval: 5s\n  jitter: 0.1\n  interval: 6s\n");
    assert!(
        e.contains("relay: key `interval` is written twice") && e.contains("line 4"),
        "{e}"
    );
    // a map keeps the later of two entries without a word: a route written twice is refused
    let e = err("relay:\n  routes:\n    orders: {to: stdout}\n    orders: {to: \"file:/tmp/x\"}\n");
    assert!(
        e.contains("relay.routes: key `orders` is written twice") && e.contains("line 4"),
        "{e}"
    );
    // the same key in two mappings is fine
    resolve(
        "relay:\n  routes:\n    a: {to: stdout, channel: x}\n    b: {to: stdout, channel: y}\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
}

#[test]
fn durations_are_human_and_positive() {
    let c = resolve(
        "relay:\n  interval: 500ms\n  reclaim_stale_after: null\n  retry_max_backoff: 10m\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    assert_eq!(c.relay.interval, Duration::from_millis(500));
    assert_eq!(c.relay.reclaim_stale_after, None);
    assert_eq!(c.relay.retry_max_backoff, secs(600));
    for bad in [
        "relay:\n  interval: 0s\n",
        "relay:\n  interval: 5\n",
        "relay:\n  interval: soon\n",
    ] {
        assert!(
            resolve(bad, &Overrides::default(), &no_env).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn invalid_combinations_are_refused_with_reasons() {
    let mongo = Overrides {
        database_url: Some("mongodb://h/".into()),
        ..Default::default()
    };
    let err = resolve("outbox:\n  storage: consume\n", &mongo, &no_env)
        .unwrap_err()
        .to_string();
    assert!(err.contains("PostgreSQL-only"), "{err}");
    let err = resolve(
        "outbox:\n  delivery_log: app.log\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("needs storage: consume"), "{err}");
    let err = resolve(
        "relay:\n  pass_statement_timeout: 2s\n  shutdown_drain_timeout: 5s\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("at least 5 ×"), "{err}");
    let err = resolve(
        "outbox:\n  relation: app.outbox;drop\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("';' is not a letter, digit, _ or $"), "{err}");
    let err = resolve(
        "outbox:\n  relation: t_{tenant}.outbox\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("tenant_aware"), "{err}");
    let err = resolve("relay:\n  jitter: 1.5\n", &Overrides::default(), &no_env)
        .unwrap_err()
        .to_string();
    assert!(err.contains("jitter"), "{err}");
}

#[test]
fn claim_ahead_is_for_retain_in_best_effort_order() {
    let d = Overrides::default();
    let c = resolve("relay:\n  claim_ahead: true\n", &d, &no_env).unwrap();
    assert!(c.relay.claim_ahead);
    assert!(!resolve("", &d, &no_env).unwrap().relay.claim_ahead);
    // by default on with named statements, where it applies
    let on = |yaml: &str| resolve(yaml, &d, &no_env).unwrap().relay.claim_ahead;
    assert!(on("relay:\n  prepared_statements: true\n"));
    assert!(!on(
        "relay:\n  prepared_statements: true\n  claim_ahead: false\n"
    ));
    assert!(!on(
        "outbox:\n  storage: consume\nrelay:\n  prepared_statements: true\n"
    ));
    assert!(!on(
        "relay:\n  prepared_statements: true\n  key_order: strict\n"
    ));
    let refused = [
        (
            "outbox:\n  storage: consume\nrelay:\n  claim_ahead: true\n",
            "needs storage: retain",
        ),
        (
            "relay:\n  claim_ahead: true\n  key_order: strict\n",
            "needs key_order: best-effort",
        ),
    ];
    for (yaml, why) in refused {
        let err = resolve(yaml, &d, &no_env).unwrap_err().to_string();
        assert!(err.contains(&format!("relay.claim_ahead {why}")), "{err}");
    }
}

#[test]
fn consume_with_delivery_log_is_fine() {
    let c = resolve(
        "outbox:\n  storage: consume\n  delivery_log: app.outbox_delivered\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    assert_eq!(c.outbox.storage, Storage::Consume);
}

#[test]
fn routes_parse() {
    let c = resolve(
        "relay:\n  routes:\n    orders:\n      to: \"nats://127.0.0.1:4222\"\n      channel: orders.events\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    assert_eq!(
        c.relay.routes["orders"].channel.as_deref(),
        Some("orders.events")
    );
}

#[test]
fn a_routes_urls_are_expanded_and_parsed_when_the_config_loads() {
    let env = |name: &str| (name == "PW").then(|| "s3cr:t".to_owned());
    let c = resolve(
        "relay:\n  routes:\n    orders:\n      to: \"amqp://relay:${PW}@mq:5672/%2f\"\n      dead_letter_to: \"file:/tmp/dead.jsonl\"\n",
        &Overrides::default(),
        &env,
    )
    .unwrap();
    let orders = &c.relay.routes["orders"];
    assert_eq!(
        orders.to.get(),
        Ok(&DestinationUrl::Amqp(
            "amqp://relay:s3cr:t@mq:5672/%2f".into()
        ))
    );
    // reports show it as written: a secret in a variable stays out of them
    assert_eq!(orders.to.to_string(), "amqp://relay:****@mq:5672/%2f");
    assert_eq!(
        orders.dead_letter_to.as_ref().and_then(RouteUrl::url),
        Some(&DestinationUrl::File("/tmp/dead.jsonl".into()))
    );
}

#[test]
fn a_variable_not_set_here_fails_only_whoever_uses_the_url() {
    // secrets are often set only where the relay runs: `inspect` needs no broker password
    let c = resolve(
        "relay:\n  routes:\n    orders:\n      to: \"nats://relay:${MISSING}@h:4222\"\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    let to = &c.relay.routes["orders"].to;
    assert_eq!(to.to_string(), "nats://relay:****@h:4222");
    assert_eq!(
        to.get().unwrap_err().to_string(),
        "relay.routes.orders.to: ${MISSING} is not set in the environment"
    );
    // the wake-up listener's URL too: only the relay that listens needs it
    let c = resolve(
        "relay:\n  wake: notify\n  wake_url: \"postgres://relay:${MISSING}@h/db\"\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    let wake = c.relay.wake_url.as_ref().expect("a wake_url");
    assert_eq!(
        wake.as_ref().unwrap_err().to_string(),
        "relay.wake_url: ${MISSING} is not set in the environment"
    );
}

#[test]
fn a_bad_route_url_is_refused_naming_its_key() {
    let bad = |yaml: &str| resolve(yaml, &Overrides::default(), &no_env).unwrap_err();
    let e = bad("relay:\n  routes:\n    orders:\n      to: \"smtp://u:pw@mail\"\n");
    assert!(
        matches!(&e, ConfigError::Destination { key, source: DestinationUrlError::Unsupported(_) } if key == "relay.routes.orders.to"),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with(
            "relay.routes.orders.to: destination \"smtp://u:****@mail\" is not supported"
        ) && !text.contains("pw"),
        "{text}"
    );
    let e = bad("relay:\n  routes:\n    orders:\n      to: \"nats://${MISSING@h\"\n");
    assert!(
        e.to_string()
            .starts_with("relay.routes.orders.to: an unclosed ${"),
        "{e}"
    );
    assert!(matches!(e, ConfigError::DestinationEnv { .. }), "{e:?}");
    let e =
        bad("relay:\n  routes:\n    orders:\n      to: stdout\n      dead_letter_to: \"file:\"\n");
    assert!(
        e.to_string()
            .starts_with("relay.routes.orders.dead_letter_to: file: needs a path"),
        "{e}"
    );
    let e = bad("relay:\n  routes:\n    orders:\n      to: \" \"\n");
    assert_eq!(e.to_string(), "relay.routes.orders.to is empty");
}

#[test]
fn expands_environment_variables_in_urls() {
    let env = |name: &str| (name == "PW").then(|| "s3cr:t".to_owned());
    assert_eq!(
        expand_env("amqp://relay:${PW}@mq:5672/%2f", &env).unwrap(),
        "amqp://relay:s3cr:t@mq:5672/%2f"
    );
    assert_eq!(expand_env("a$$b$c", &env).unwrap(), "a$b$c");
    let e = expand_env("nats://${MISSING}@h", &env).unwrap_err();
    assert_eq!(e, EnvError::Unset("MISSING".into()));
    assert!(e.to_string().contains("${MISSING} is not set"), "{e}");
    assert!(
        expand_env("x${PW", &env)
            .unwrap_err()
            .to_string()
            .contains("unclosed")
    );
    assert!(
        expand_env("${1A}", &env)
            .unwrap_err()
            .to_string()
            .contains("not an environment")
    );
}

/// `registry: off` in any case, as YAML writes its booleans: `OFF` or `No` named a table.
#[test]
fn registry_off_in_any_case() {
    for off in ["off", "OFF", "Off", "false", "No", "none"] {
        let c = resolve(
            &format!("outbox:\n  registry: \"{off}\"\n"),
            &Overrides::default(),
            &no_env,
        )
        .unwrap();
        let Target::Postgres { registry, .. } = &c.outbox.target else {
            panic!("a PostgreSQL target")
        };
        assert!(registry.is_none(), "{off}: {registry:?}");
    }
    let c = resolve(
        "outbox:\n  registry: app.fleet\n",
        &Overrides::default(),
        &no_env,
    )
    .unwrap();
    let Target::Postgres { registry, .. } = &c.outbox.target else {
        panic!("a PostgreSQL target")
    };
    assert_eq!(
        registry.as_ref().map(|r| r.plain()).as_deref(),
        Some("app.fleet")
    );
}

/// An unknown key of the top mapping is named with its line, as one inside a section is
/// (serde_yaml names none for it: `databse_url` was reported without a place).
#[test]
fn an_unknown_top_level_key_is_named_with_its_line() {
    let e = FileConfig::parse("f.yaml", "# settings\ndatabse_url: postgres://x@h/d\n")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("unknown field `databse_url`"), "{e}");
    assert!(e.contains("at line 2 column 1"), "{e}");
    let inner = FileConfig::parse("f.yaml", "outbox:\n  stroage: consume\n")
        .expect_err("refused")
        .to_string();
    assert_eq!(inner.matches(" at line ").count(), 1, "{inner}");
}

/// Two settings that name one table are refused, naming both: a checkpoint in the outbox table
/// had `migrate` report the checkpoint's columns as the outbox's.
#[test]
fn two_settings_naming_one_table_are_refused() {
    for (yaml, keys) in [
        (
            "outbox:\n  relation: app.outbox\n  hlc_checkpoint: app.outbox\n",
            "outbox.relation and outbox.hlc_checkpoint both name app.outbox",
        ),
        (
            "outbox:\n  delivery_log: app.log\n  registry: app.log\n",
            "outbox.delivery_log and outbox.registry both name app.log",
        ),
        (
            "database_url: mongodb://h/db\noutbox:\n  collection: app.o\n  registry: app.o\n",
            "outbox.collection and outbox.registry both name app.o",
        ),
        (
            "outbox:\n  tenant_aware: true\n  relation: app.o_{tenant}\n  delivery_log: app.o_{tenant}\n",
            "outbox.relation and outbox.delivery_log both name app.o_{tenant}",
        ),
        (
            "outbox:\n  hlc_checkpoint: app.outbox_relays_pauses\n",
            "outbox.hlc_checkpoint and outbox.registry's pauses both name app.outbox_relays_pauses",
        ),
    ] {
        let e = resolve(yaml, &Overrides::default(), &no_env).unwrap_err();
        assert!(e.to_string().contains(keys), "{yaml}: {e}");
    }
    let apart = "outbox:\n  relation: app.outbox\n  hlc_checkpoint: app.hlc_checkpoint\n";
    assert!(resolve(apart, &Overrides::default(), &no_env).is_ok());
}

/// A route name with a space at either end (emit and `--route` refuse such a name: rows staged
/// under it are another route's), and an empty `channel` (AMQP declared a queue of a name the
/// server made up, another each run; Redis wrote to the empty key), are refused.
#[test]
fn a_route_name_or_channel_that_cannot_be_one_is_refused() {
    for (yaml, said) in [
        (
            "relay:\n  routes:\n    \"orders \":\n      to: stdout\n",
            "starts or ends with a space",
        ),
        (
            "relay:\n  routes:\n    orders:\n      to: amqp://mq\n      channel: \"\"\n",
            "relay.routes.orders.channel is empty",
        ),
        (
            "relay:\n  routes:\n    orders:\n      to: redis://r\n      channel: \" \"\n",
            "relay.routes.orders.channel is empty",
        ),
    ] {
        let e = resolve(yaml, &Overrides::default(), &no_env).unwrap_err();
        assert!(e.to_string().contains(said), "{yaml}: {e}");
    }
}

/// A `relay.wake_url` of another scheme is said as the wake URL's: it was blamed on the database
/// URL, offering `mongodb://`, which the next check refused.
#[test]
fn a_wake_url_of_another_scheme_is_named_as_such() {
    let yaml = "relay:\n  wake: notify\n  wake_url: \"mysql://u:s3cret@x/db\"\n";
    let e = resolve(yaml, &Overrides::default(), &no_env)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("relay.wake_url mysql://u:****@x/db is not a postgres:// URL"),
        "{e}"
    );
    assert!(!e.contains("s3cret") && !e.contains("mongodb"), "{e}");
}
