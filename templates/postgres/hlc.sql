ALTER TABLE {{outbox}} ADD COLUMN hlc BIGINT;

-- claim order becomes (hlc NULLS LAST, created_at, id); index to match
CREATE INDEX {{claim_hlc_idx}}
    ON {{outbox}} (outbox_route, status, available_at, hlc, created_at, id);
