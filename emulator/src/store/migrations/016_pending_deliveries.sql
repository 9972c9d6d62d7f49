-- The index the dispatcher finds due deliveries by (WebhookStore.due, nextDue, both asking for
-- status = 'pending') holds the pending deliveries alone. A delivery recorded for a paused
-- webhook (D-35), and every delivery once it succeeded or failed, wrote an entry there that no
-- query read: with SMTP's group commit, one more index page copied into each message's
-- savepoint (issue 31 item 2: the store's CPU a message 150-239 -> 135-229 us in process, four
-- alternated runs). Same rows, same answers; `due` still orders by next_attempt_at, then id.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at) WHERE status = 'pending';
