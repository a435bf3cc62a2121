-- relay.wake: notify (outboxctl): wakes LISTENing relays at commit, one notification per
-- statement and route, on channel <table>_wake with the route as payload
CREATE OR REPLACE FUNCTION {{wake_fn}}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_TABLE_NAME || '_wake', r.outbox_route)
       FROM (SELECT DISTINCT outbox_route FROM outboxctl_new_rows) r;
    RETURN NULL;
END
$$;

CREATE TRIGGER {{wake_trigger}} AFTER INSERT ON {{outbox}}
    REFERENCING NEW TABLE AS outboxctl_new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {{wake_fn}}();
