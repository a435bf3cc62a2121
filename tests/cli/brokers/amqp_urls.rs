//! What an `amqp://` URL names, as the relay dials it.

use super::*;

/// An IPv6 literal names the broker. lapin's URL reader took it for `localhost` (an IP literal
/// is not a domain), so `amqp://[::1]:5672` reached the RabbitMQ listening on 127.0.0.1 only,
/// and a remote broker's address was never dialled. Through a forwarder that listens on [::1]
/// alone the relay delivers; to [::1]:5672, where nothing listens, it is refused and delivers
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ipv6_literal_is_the_address_dialled() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let queue = format!("{}.v6", schema.name);
    let listener = tokio::net::TcpListener::bind("[::1]:0")
        .await
        .expect("the IPv6 loopback address [::1]");
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut broker = tokio::net::TcpStream::connect(AMQP_ADDR)
                    .await
                    .expect("RabbitMQ on 127.0.0.1:5672 (scripts/services.sh starts it)");
                let _ = tokio::io::copy_bidirectional(&mut client, &mut broker).await;
            });
        }
    });
    let relay_to = |name: &str, port: u16| {
        let cfg = crate::common::config_file(
            name,
            &format!(
                "relay:\n  routes:\n    orders:\n      to: \"amqp://guest:guest@[::1]:{port}/%2f\"\n      channel: {queue}\n      declare: true\n"
            ),
        );
        relay_plain(&schema, &cfg)
    };
    let unsent = format!("SELECT count(*) FROM {t} WHERE status <> 'published'");
    stage(&mut conn, &t, "orders", 3, None).await;
    let out = relay_to("amqp_v6_forwarded", port);
    assert_eq!(out.code, OK, "{out:?}");
    assert_eq!(count(&mut conn, &unsent).await, 0);
    stage(&mut conn, &t, "orders", 2, None).await;
    let out = relay_to("amqp_v6_nothing_there", 5672);
    assert_ne!(out.code, OK, "{out:?}");
    assert!(out.stderr.contains("connecting to RabbitMQ"), "{out:?}");
    assert_eq!(count(&mut conn, &unsent).await, 2);
    let (_c, ch) = amqp_channel().await;
    let _ = ch
        .queue_delete(&queue, lapin::options::QueueDeleteOptions::default())
        .await;
}

/// The RabbitMQ of scripts/services.sh, as a socket address.
const AMQP_ADDR: &str = "127.0.0.1:5672";
