//! The pure parts of the lanes: how long a destination found down waits (`backoff::down_wait`),
//! and what a pass cut by its limits says.

use super::*;

#[test]
fn a_destination_down_again_soon_after_it_came_back_waits_twice_as_long() {
    let (ms, now) = (Duration::from_millis, Instant::now());
    let (interval, cap) = (ms(100), ms(1_000));
    let back = |ago: u64, wait: u64| {
        Some(Back {
            at: now - ms(ago),
            wait: ms(wait),
        })
    };
    assert_eq!(
        down_wait(None, now, interval, cap),
        interval,
        "first time down"
    );
    assert_eq!(down_wait(back(5, 100), now, interval, cap), ms(200));
    assert_eq!(down_wait(back(5, 400), now, interval, cap), ms(800));
    assert_eq!(
        down_wait(back(5, 800), now, interval, cap),
        cap,
        "up to the cap"
    );
    assert_eq!(
        down_wait(back(700, 400), now, interval, cap),
        ms(800),
        "within twice its wait"
    );
    assert_eq!(
        down_wait(back(900, 400), now, interval, cap),
        interval,
        "up long enough: anew"
    );
}

#[test]
fn a_pass_cut_by_its_limits_points_at_who_holds_the_table() {
    let cut = "claiming: canceling statement due to statement timeout";
    assert!(timed_out_hint(cut, None).is_some_and(|h| h.contains("outboxctl doctor")));
    let who = "pid 7 (ExclusiveLock on app.outbox, idle in transaction, its transaction 9 s old)";
    assert_eq!(
        timed_out_hint(cut, Some(who)).as_deref(),
        Some(
            "the table is locked by pid 7 (ExclusiveLock on app.outbox, idle in transaction, its transaction 9 s old): end that transaction, or let it finish, and the passes go on"
        )
    );
    assert!(
        timed_out_hint(
            "reclaiming stale rows: canceling statement due to lock timeout",
            None
        )
        .is_some()
    );
    assert_eq!(
        timed_out_hint("claiming: connection refused", Some(who)),
        None
    );
}
