//! Unit tests of the Kafka destination: its URLs, and which broker errors park a row.

use super::*;

#[test]
fn parses_kafka_urls() {
    let u = KafkaUrl::parse("kafka://b1:9092,b2:9093").unwrap();
    assert_eq!((u.bootstrap.as_str(), u.tls), ("b1:9092,b2:9093", false));
    assert_eq!(
        u.client_config().get("security.protocol"),
        Some("plaintext")
    );
    let u = KafkaUrl::parse("kafkas://app:p%40ss@b1:9092/?sasl_mechanism=SCRAM-SHA-256").unwrap();
    assert_eq!(u.username.as_deref(), Some("app"));
    assert_eq!(u.password.as_deref(), Some("p@ss"));
    let c = u.client_config();
    assert_eq!(c.get("security.protocol"), Some("sasl_ssl"));
    assert_eq!(c.get("sasl.mechanism"), Some("SCRAM-SHA-256"));
    assert!(
        !format!("{u:?}").contains("p@ss"),
        "Debug hides the password"
    );
    let u = KafkaUrl::parse("kafkas://b1:9093?ssl_ca_location=/etc/ca%20dir/ca.pem").unwrap();
    let c = u.client_config();
    assert_eq!(c.get("security.protocol"), Some("ssl"));
    assert_eq!(c.get("ssl.ca.location"), Some("/etc/ca dir/ca.pem"));
    let e = KafkaUrl::parse("kafka://app:secret@b1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs a port") && !e.contains("secret"), "{e}");
    // a password with a raw `?`: the URL is cut there, and no part of the password shown
    let e = KafkaUrl::parse("kafka://app:s3cr?et@b1:9092")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a broker is not host:port") && !e.contains("s3cr"),
        "{e}"
    );
    let e = KafkaUrl::parse("kafka://app:1234?s3cret@b1:9092")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown parameter in the query") && !e.contains("s3cret"),
        "{e}"
    );
    let e = KafkaUrl::parse("kafka://b1:9092?acks=1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown parameter \"acks\""), "{e}");
}

#[test]
fn only_what_the_broker_says_again_of_the_same_record_parks_it_at_once() {
    use RDKafkaErrorCode as C;
    assert!(is_permanent(C::MessageSizeTooLarge));
    // an ACL an operator adds while the row waits: retried, parked at max_attempts
    for code in [C::TopicAuthorizationFailed, C::ClusterAuthorizationFailed] {
        assert!(!is_permanent(code), "{code:?}");
    }
    assert!(is_away(Some(C::AllBrokersDown), false));
    assert!(!is_away(Some(C::MessageTimedOut), false));
}
