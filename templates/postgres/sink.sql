-- postgres-table destination: what the relay delivered, once per event
CREATE TABLE {{sink}} (
    event_id UUID PRIMARY KEY,
    outbox_route TEXT NOT NULL,
    event_type TEXT NOT NULL,
    ordering_key TEXT,
    tenant_id UUID,
    payload JSONB NOT NULL,
    headers JSONB NOT NULL,
    published_at TIMESTAMPTZ NOT NULL
);

-- outboxctl replay --from postgres-table: a route's events in delivery order
CREATE INDEX {{sink_replay_idx}}
    ON {{sink}} (outbox_route, published_at, event_id);
