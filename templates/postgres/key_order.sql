-- key_order: strict (outboxctl): finds the earlier unpublished rows of an ordering key
CREATE INDEX {{key_idx}}
    ON {{outbox}} (outbox_route, ordering_key, created_at) WHERE status <> 'published';
