//! Physical names on each broker, as forze derives them from a route's channel (forze-wire
//! §0.7), using the row's tenant.

use uuid::Uuid;

use super::PublishError;

fn tenant_required(tenant: Option<Uuid>) -> Result<Uuid, PublishError> {
    // forze raises `tenant_required`, which counts as a transient failure (retried, then failed).
    tenant.ok_or_else(|| {
        PublishError::transient(
            "tenant_required: the destination is tenant-aware but the row has no tenant_id",
        )
    })
}

/// Redis stream key: `channel`, or `tenant:{uuid}:stream:{channel}`.
pub fn redis_stream(
    channel: &str,
    tenant_aware: bool,
    tenant: Option<Uuid>,
) -> Result<String, PublishError> {
    if !tenant_aware {
        return Ok(channel.to_owned());
    }
    Ok(format!(
        "tenant:{}:stream:{channel}",
        tenant_required(tenant)?
    ))
}

/// Redis pub/sub channel: `channel`, or `tenant:{uuid}:pubsub:{channel}`.
pub fn redis_pubsub(
    channel: &str,
    tenant_aware: bool,
    tenant: Option<Uuid>,
) -> Result<String, PublishError> {
    if !tenant_aware {
        return Ok(channel.to_owned());
    }
    Ok(format!(
        "tenant:{}:pubsub:{channel}",
        tenant_required(tenant)?
    ))
}

/// RabbitMQ queue: `[tenant:{uuid}:][{namespace}:]{channel}`, leading `:` stripped.
pub fn rabbitmq_queue(
    channel: &str,
    namespace: &str,
    tenant_aware: bool,
    tenant: Option<Uuid>,
) -> Result<String, PublishError> {
    let mut parts = Vec::new();
    if tenant_aware {
        parts.push(format!("tenant:{}", tenant_required(tenant)?));
    }
    if !namespace.is_empty() {
        parts.push(namespace.to_owned());
    }
    parts.push(channel.to_owned());
    Ok(parts.join(":").trim_start_matches(':').to_owned())
}

/// Kafka topic: `{namespace}.{channel}` when the namespace is not empty, else `channel`.
pub fn kafka_topic(channel: &str, namespace: &str) -> String {
    if namespace.is_empty() {
        channel.to_owned()
    } else {
        format!("{namespace}.{channel}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "0190c4e2-8a6c-7e4a-9b1e-00000000abcd";

    #[test]
    fn forze_worked_examples() {
        let t = Some(T.parse().unwrap());
        assert_eq!(
            rabbitmq_queue("orders.events", "", false, None).unwrap(),
            "orders.events"
        );
        assert_eq!(
            rabbitmq_queue("orders.events", "app", false, None).unwrap(),
            "app:orders.events"
        );
        assert_eq!(
            rabbitmq_queue("orders.events", "", true, t).unwrap(),
            format!("tenant:{T}:orders.events")
        );
        assert_eq!(
            rabbitmq_queue("orders.events", "app", true, t).unwrap(),
            format!("tenant:{T}:app:orders.events")
        );
        assert_eq!(
            redis_stream("orders.events", true, t).unwrap(),
            format!("tenant:{T}:stream:orders.events")
        );
        assert_eq!(
            redis_pubsub("orders.events", true, t).unwrap(),
            format!("tenant:{T}:pubsub:orders.events")
        );
        assert_eq!(kafka_topic("orders.events", "acme"), "acme.orders.events");
        assert_eq!(kafka_topic("orders.events", ""), "orders.events");
        let e = redis_stream("x", true, None).unwrap_err();
        assert!(
            e.kind == super::super::Refusal::Transient && e.message.contains("tenant_required")
        );
    }
}
