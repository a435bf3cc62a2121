-- outbox.replay_index (outboxctl): delivered rows in claim order, which outboxctl replay pages
-- through; it costs one index entry per row marked published
CREATE INDEX {{replay_idx}}
    ON {{outbox}} ({{replay_order}}) WHERE status = 'published';
