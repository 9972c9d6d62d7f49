-- Tenants (issue 30 item 1): a private world made by one control-plane call, an owner with
-- mailboxes on a domain of its own and keys of each scope. The domain is the tenant's: every
-- mailbox on it belongs to it, and mail between two worlds goes through the outbox.
CREATE TABLE tenants (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  owner_id    TEXT NOT NULL UNIQUE,
  domain      TEXT NOT NULL UNIQUE,
  created_at  TEXT NOT NULL
);
-- The outbox's filters (to, from, subject, text; D-71): the subject and the text part kept
-- lower case (Unicode) beside the bytes, so a filter reads no message; NULL on rows captured
-- before this migration, which then match only an empty text filter.
ALTER TABLE outbox ADD COLUMN subject_search TEXT;
ALTER TABLE outbox ADD COLUMN text_search TEXT;
CREATE INDEX outbox_by_sender ON outbox (envelope_from, seq);
