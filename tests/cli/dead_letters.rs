//! A route's dead-letter destination at start: checked by `doctor` on a line of its own, named
//! by its `dead_letter_to` key when it cannot start, and said to hold what it would park (not
//! the route) while it does not answer. What happens to the rows is in `restarts`.

use crate::common::{CHECK_FAILED, ERROR, PgSchema, ob};

/// A dead-letter destination the relay cannot start with (a file in a folder that is not
/// there) fails `doctor`, which passed it unchecked, and both it and `relay --once` (exit 2)
/// name it by its `dead_letter_to` key, not `to`.
#[tokio::test]
async fn a_dead_letter_destination_that_cannot_start_is_named_by_its_key() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    let t = schema.rel("outbox");
    assert_eq!(ob(["migrate"]).pg(&t).run().code, 0);
    let dir = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(&schema.name);
    std::fs::create_dir_all(&dir).unwrap();
    let (to, letters) = (dir.join("out.jsonl"), dir.join("no-such-folder/dead.jsonl"));
    let yaml = format!(
        "relay:\n  routes:\n    orders:\n      to: file:{}\n      dead_letter_to: file:{}\n",
        to.display(),
        letters.display()
    );
    let cfg = crate::common::config_file(test, &yaml);
    let key = "relay.routes.orders.dead_letter_to";
    let r = ob(["doctor"]).pg(&t).config(&cfg).run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("orders dead letters →"));
    assert!(line.is_some_and(|l| l.contains("does not exist")), "{r:?}");
    assert!(
        r.stdout.contains("orders → file:"),
        "the route's own line stays: {r:?}"
    );
    let r = ob(["relay", "--once"]).pg(&t).config(&cfg).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains(&format!("{key}: cannot open")), "{r:?}");
    // one that does not answer holds back what would be parked, not the route (its warning
    // said the route waited, and the route went on)
    let yaml = format!(
        "relay:\n  routes:\n    orders:\n      to: file:{}\n      dead_letter_to: redis://127.0.0.1:1\n",
        to.display()
    );
    let cfg = crate::common::config_file(test, &yaml);
    let held = "rows to park there are held (pending, due again after relay.retry_max_backoff) until it answers; the route goes on";
    for args in [&["relay", "--once"][..], &["doctor"]] {
        let r = ob(args).pg(&t).config(&cfg).run();
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(
            said.contains(held) && !said.contains("its routes wait"),
            "{args:?}: {r:?}"
        );
    }
}
