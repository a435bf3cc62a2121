//! The pure parts of the lanes: how long a destination found down waits.

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
