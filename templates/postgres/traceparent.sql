ALTER TABLE {{outbox}} ADD COLUMN traceparent TEXT;
