-- key_order: strict (outboxctl): finds the earlier unpublished rows of an ordering key
CREATE INDEX {{key_idx}}
    ON {{outbox}} (outbox_route, ordering_key, created_at) WHERE status <> 'published';

-- key_order: strict (outboxctl): the claim order carrying each row's key, so the claim steps
-- over a stuck key's waiting rows from the index alone
CREATE INDEX {{strict_claim_idx}}
    ON {{outbox}} ({{strict_claim_order}}) INCLUDE (ordering_key, tenant_id);
