CREATE TABLE {{log}} (
    id UUID NOT NULL,              -- the outbox row's id
    outbox_route TEXT NOT NULL,
    event_id UUID NOT NULL,
    tenant_id UUID,
    published_at TIMESTAMPTZ NOT NULL
) PARTITION BY RANGE (published_at);

-- no unique key: an event staged again after delivery is delivered again
CREATE INDEX {{log_event_idx}} ON {{log}} (event_id);

-- the net for a day nobody added
CREATE TABLE {{log_default}} PARTITION OF {{log}} DEFAULT;
