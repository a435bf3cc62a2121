-- outboxctl's relay registry: a row per relay, written every relay.heartbeat (outboxctl-owned;
-- forze's relays neither write nor read it)
CREATE TABLE {{registry}} (
    id           TEXT PRIMARY KEY,
    host         TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    version      TEXT NOT NULL,
    routes       TEXT[] NOT NULL,
    tenants      UUID[] NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL,
    last_seen    TIMESTAMPTZ NOT NULL,   -- the server's now(): staleness is judged here
    last_pass_at TIMESTAMPTZ,
    last_error   TEXT,
    published    BIGINT NOT NULL,
    lag_p99_ms   DOUBLE PRECISION,
    metrics_addr TEXT,
    heartbeat_ms BIGINT NOT NULL,
    stopped_at   TIMESTAMPTZ
);

-- routes paused by `outboxctl route pause`: a row per pause, kept as history once resumed
CREATE TABLE {{pauses}} (
    route      TEXT NOT NULL,
    tenant_id  UUID,                     -- NULL: every tenant
    reason     TEXT NOT NULL,
    paused_by  TEXT NOT NULL,
    paused_at  TIMESTAMPTZ NOT NULL,
    resumed_by TEXT,
    resumed_at TIMESTAMPTZ
);

-- one pause in force per route and tenant; the relay's claim looks it up
CREATE UNIQUE INDEX {{pauses_active_idx}}
    ON {{pauses}} (route, COALESCE(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid))
    WHERE resumed_at IS NULL;
