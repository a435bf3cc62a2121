//! The dead-letter destination in the engine, without servers: a row goes there before it is
//! parked, and waits while it is down; the error header it carries.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use chrono::Utc;

use super::tests::{Script, memory, n_of, of, settings, stage, target};
use crate::destination::{PublishError, Publisher, Sink};
use crate::model::{Message, Status, Storage};
use crate::relay::engine::{PassOptions, run_pass};

/// A dead-letter destination that keeps what it was given, and refuses while `down`.
#[derive(Default)]
struct Letters {
    got: Mutex<Vec<Message>>,
    down: std::sync::atomic::AtomicBool,
}

impl Publisher for Letters {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let result = if self.down.load(Ordering::SeqCst) {
            Err(PublishError::away("connection refused"))
        } else {
            self.got.lock().unwrap().push((*message).clone());
            Ok(())
        };
        Box::pin(async move { result })
    }
}

#[tokio::test]
async fn a_row_goes_to_the_dead_letter_destination_before_it_is_parked_and_waits_while_it_is_down()
{
    for storage in [Storage::Retain, Storage::Consume] {
        let mut store = memory(storage, false);
        stage(&store, 3, |_| None);
        store.table().rows[2].row.attempts = 2; // its next failure is its last (max_attempts 3)
        let main = Script::new(|n| match n {
            1 => Err(PublishError::permanent("HTTP 400: bad order")),
            2 => Err(PublishError::transient("HTTP 503")),
            _ => Ok(()),
        });
        let letters = Arc::new(Letters::default());
        letters.down.store(true, Ordering::SeqCst);
        let s = settings(storage, false);
        let sink = Sink::Publisher(main.clone());
        let options = PassOptions {
            dead_letter: Some(letters.clone() as Arc<dyn Publisher>),
            ..PassOptions::default()
        };
        // the dead-letter destination is down: nothing is parked, attempts stay as they were
        let report = run_pass(&mut store, &target(), &sink, &s, options.clone()).await;
        assert_eq!(
            (
                report.published,
                report.failed,
                report.dead_lettered,
                report.retried
            ),
            (1, 0, 0, 2),
            "{storage}: {report:?}"
        );
        assert_eq!(of(&store, 1), (Status::Pending, 0), "{storage}");
        assert_eq!(of(&store, 2), (Status::Pending, 2), "{storage}");
        let later = store
            .table()
            .rows
            .iter()
            .find(|r| r.row.payload.contains("\"n\": 1"))
            .and_then(|r| r.available_at)
            .expect("due again later");
        assert!(
            later > Utc::now() + chrono::Duration::seconds(50),
            "after retry_max_backoff"
        );
        // it is back: the next pass that reaches them sends them there, then parks them
        letters.down.store(false, Ordering::SeqCst);
        for r in &mut store.table().rows {
            r.available_at = None;
        }
        let report = run_pass(&mut store, &target(), &sink, &s, options.clone()).await;
        assert_eq!(
            (report.failed, report.dead_lettered),
            (2, 2),
            "{storage}: {report:?}"
        );
        assert_eq!(of(&store, 1).0, Status::Failed);
        assert_eq!(
            of(&store, 2),
            (Status::Failed, 2),
            "attempts as the spec leaves them"
        );
        let got = letters.got.lock().unwrap();
        let header = |m: &Message, k: &str| {
            m.headers
                .iter()
                .find(|(h, _)| *h == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let mut seen: Vec<(usize, String, String)> = got
            .iter()
            .map(|m| {
                (
                    n_of(m),
                    header(m, "outboxctl_error"),
                    header(m, "outboxctl_attempts"),
                )
            })
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            [
                (1, "HTTP 400: bad order".into(), "1".into()),
                (2, "HTTP 503".into(), "3".into())
            ]
        );
        assert!(
            got.iter()
                .all(|m| !header(m, "outboxctl_failed_at").is_empty())
        );
        assert!(
            got.iter()
                .all(|m| m.headers.iter().any(|(h, _)| *h == "forze_event_id")),
            "the original headers come first"
        );
    }
}

#[test]
fn a_dead_letter_error_header_is_one_line_of_at_most_1_kib() {
    let store = memory(Storage::Retain, false);
    stage(&store, 1, |_| None);
    let message = Message::from_row(&store.table().rows[0].row).unwrap();
    let long = format!("{}\nsecond line", "é".repeat(800));
    let letter = crate::relay::dead_letter::dead_letter_message(&message, &long, 5);
    let error = &letter
        .headers
        .iter()
        .find(|(h, _)| *h == "outboxctl_error")
        .unwrap()
        .1;
    assert!(
        error.len() <= 1024 && !error.contains('\n'),
        "{}",
        error.len()
    );
    assert!(error.starts_with("éé"));
}
