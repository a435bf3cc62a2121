//! Unit tests of replay: headers read back, broker keys, the order of one key's events and
//! the pacing of a rate.

use super::*;

#[test]
fn headers_read_back_go_in_the_relays_order() {
    let pairs = vec![
        ("forze_hlc".to_owned(), "h".to_owned()),
        ("traceparent".to_owned(), "t".to_owned()),
        ("forze_event_id".to_owned(), "e".to_owned()),
        ("forze_occurred_at".to_owned(), "o".to_owned()),
    ];
    let names: Vec<&str> = ordered_headers(pairs)
        .unwrap()
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(
        names,
        [
            "forze_event_id",
            "forze_occurred_at",
            "forze_hlc",
            "traceparent"
        ]
    );
    let e = ordered_headers(vec![("x-other".into(), "1".into())]).unwrap_err();
    assert!(e.to_string().contains("x-other"), "{e}");
}

/// One key's events go one at a time whatever their tenant (a broker keys by the key
/// alone), unless each tenant has a channel of its own.
#[tokio::test]
async fn one_keys_events_go_in_order_across_tenants() {
    struct Recorder {
        per_tenant: bool,
        done: std::sync::Mutex<Vec<Uuid>>,
    }
    impl Publisher for Arc<Recorder> {
        fn publish(
            &self,
            m: Arc<Message>,
        ) -> futures_util::future::BoxFuture<'static, Result<(), destination::PublishError>>
        {
            let me = self.clone();
            // the first event takes longer: sent side by side, the second finishes first
            let wait = Duration::from_millis(if m.tenant_id == Some(Uuid::nil()) {
                50
            } else {
                0
            });
            Box::pin(async move {
                tokio::time::sleep(wait).await;
                me.done.lock().unwrap().push(m.event_id);
                Ok(())
            })
        }
        fn channel_per_tenant(&self) -> bool {
            self.per_tenant
        }
    }
    let item = |tenant: Uuid, event: u128| {
        let line = format!(
            r#"{{"id":"{nil}","event_id":"{e}","route":"orders","type":"t","key":"k","tenant_id":"{tenant}","payload":{{}},"headers":{{}}}}"#,
            nil = Uuid::nil(),
            e = Uuid::from_u128(event)
        );
        Item {
            message: Arc::new(file::parse_line(&line).unwrap()),
            cursor: Cursor::Line {
                source: None,
                line: 1,
            },
            published_at: None,
        }
    };
    let page = [item(Uuid::nil(), 1), item(Uuid::max(), 2)];
    for (per_tenant, order) in [(false, [1, 2]), (true, [2, 1])] {
        let r = Arc::new(Recorder {
            per_tenant,
            done: Default::default(),
        });
        let p: Arc<dyn Publisher> = Arc::new(r.clone());
        let halt = AtomicBool::new(false);
        let sent = publish_page(&page, &[p.clone(), p], false, Tries::default(), None, &halt).await;
        assert!(matches!(sent, (2, None)), "{sent:?}");
        let want: Vec<Uuid> = order.iter().map(|&n| Uuid::from_u128(n)).collect();
        assert_eq!(
            *r.done.lock().unwrap(),
            want,
            "channel per tenant: {per_tenant}"
        );
    }
}

/// With a rate, each send starts 1/rate after the one before it, however long a send took:
/// a stall is not made up for with a burst.
#[tokio::test]
async fn a_rate_spaces_each_send_after_a_stall() {
    struct Slow(std::sync::Mutex<Vec<tokio::time::Instant>>);
    impl Publisher for Arc<Slow> {
        fn publish(
            &self,
            _: Arc<Message>,
        ) -> futures_util::future::BoxFuture<'static, Result<(), destination::PublishError>>
        {
            let me = self.clone();
            Box::pin(async move {
                let first = {
                    let mut starts = me.0.lock().unwrap();
                    starts.push(tokio::time::Instant::now());
                    starts.len() == 1
                };
                if first {
                    // the stall
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Ok(())
            })
        }
    }
    let line = format!(
        r#"{{"id":"{n}","event_id":"{n}","route":"orders","type":"t","key":"k","tenant_id":null,"payload":{{}},"headers":{{}}}}"#,
        n = Uuid::nil()
    );
    let item = || Item {
        message: Arc::new(file::parse_line(&line).unwrap()),
        cursor: Cursor::Line {
            source: None,
            line: 1,
        },
        published_at: None,
    };
    let page = [item(), item(), item()];
    let slow = Arc::new(Slow(Default::default()));
    let p: Arc<dyn Publisher> = Arc::new(slow.clone());
    let mut last = None;
    let interval = Duration::from_millis(100);
    let halt = AtomicBool::new(false);
    let sent = publish_page(
        &page,
        &[p.clone(), p.clone(), p.clone()],
        true,
        Tries::default(),
        Some((interval, &mut last)),
        &halt,
    )
    .await;
    assert!(matches!(sent, (3, None)), "{sent:?}");
    let starts = slow.0.lock().unwrap().clone();
    assert_eq!(starts.len(), 3, "every event of the page sent once");
    for w in starts.windows(2) {
        assert!(w[1] - w[0] >= interval, "{:?}", w[1] - w[0]);
    }
    // halted (Ctrl-C): no publish starts, one at a time or side by side
    halt.store(true, Ordering::SeqCst);
    for serial in [true, false] {
        let all = [p.clone(), p.clone(), p.clone()];
        let sent = publish_page(&page, &all, serial, Tries::default(), None, &halt).await;
        assert!(matches!(sent, (0, None)), "{sent:?}");
    }
    assert_eq!(
        slow.0.lock().unwrap().len(),
        3,
        "nothing more sent once halted"
    );
}

#[test]
fn broker_key_falls_back_to_the_event_id() {
    let id = Uuid::nil();
    assert_eq!(broker_key(Some("k"), id), "k");
    assert_eq!(broker_key(Some(""), id), id.to_string());
    assert_eq!(broker_key(None, id), id.to_string());
}

#[test]
fn a_replay_stopped_by_a_lost_database_keeps_exit_3_and_says_how_to_resume() {
    use crate::exit_code::{CONNECT, ERROR, ExitStatus};
    let lost = sqlx::Error::Io(std::io::Error::new(
        std::io::ErrorKind::ConnectionReset,
        "connection reset by peer",
    ));
    let stopped = |error| Stopped {
        tally: Tally::default(),
        error,
    };
    let e = stopped(Error::pg("reading the outbox", lost)).into_error("resume with --after r1.x");
    assert_eq!(e.exit_code(), CONNECT, "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("reading the outbox (resume with --after r1.x): ")
            && text.contains("reset"),
        "{text}"
    );
    let e = stopped(Error::pg("reading the outbox", sqlx::Error::RowNotFound))
        .into_error("resume with --after r1.x");
    assert_eq!(e.exit_code(), ERROR, "{e}");
    assert!(e.to_string().ends_with("; resume with --after r1.x"), "{e}");
}

#[test]
fn the_summary_keeps_off_standard_output_however_the_replay_names_it() {
    let routes = BTreeMap::new();
    let to = |t: &str| {
        Summary {
            dry_run: false,
            to: Some(t.into()),
            count: 0,
            routes: &routes,
            cursor: None,
            elapsed_ms: 0,
            stopped: None,
            not_found: &[],
        }
        .to_stdout()
    };
    for out in ["stdout", "-", "file:/dev/stdout", "file:///dev/fd/1"] {
        assert!(to(out), "{out}");
    }
    for elsewhere in [
        "file:/tmp/replayed.jsonl",
        "file:/dev/stderr",
        "nats://h:4222/s",
    ] {
        assert!(!to(elsewhere), "{elsewhere}");
    }
}
