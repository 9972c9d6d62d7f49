-- A large raw message received through the control plane is stored in turns of the event loop
-- of their own (issue 27 item 1), as a captured message's bytes are (migration 011): its raw
-- bytes, then the data its webhooks are sent, a part at a time, then the email and its
-- deliveries naming them. The email, its text, the raw bytes and the webhook data (3 x 4.5 MB)
-- written in one transaction held every other request for all of it; and a value of megabytes
-- written in one statement costs more than its parts do (SQLite and better-sqlite3 copy a bound
-- value whole, twice, into memory the process must fault in: about 25 ms of CPU per copy of
-- 4.5 MB here), where parts of 64 KiB reuse the same memory.

-- The raw bytes of an email that arrived as a large raw message, in parts (`part` 0, 1, ... in
-- order), written before the email under its id. Until the email is written they are seen by
-- nothing (its source is read from `emails`); an email stored otherwise keeps its bytes in
-- email_contents.raw. Parts whose email never came (the process stopped in between) are dropped
-- when the store opens; deleting an email (one, a tenant's, or all) deletes them.
CREATE TABLE email_raw (
  email_id  TEXT NOT NULL,
  part      INTEGER NOT NULL,
  raw       BLOB NOT NULL,
  PRIMARY KEY (email_id, part)
);
CREATE TRIGGER email_raw_follows_its_email AFTER DELETE ON emails
BEGIN
  DELETE FROM email_raw WHERE email_id = old.id;
END;

-- The data of a webhook event, written once for every delivery of it, in parts: a delivery's
-- own row then stays small, so recording an attempt (an UPDATE, which SQLite writes as a whole
-- new row) no longer writes its megabytes again, and webhooks hearing the same email share one
-- copy. A delivery of large data names it here (its data_json is then empty); one recorded
-- before, or of small data, keeps it in data_json. Data no delivery names is dropped when the
-- store opens and when its last delivery is deleted.
CREATE TABLE delivery_payloads (
  id    INTEGER PRIMARY KEY,
  size  INTEGER NOT NULL
);
CREATE TABLE delivery_payload_parts (
  payload_id  INTEGER NOT NULL REFERENCES delivery_payloads (id) ON DELETE CASCADE,
  part        INTEGER NOT NULL,
  data        BLOB NOT NULL,
  PRIMARY KEY (payload_id, part)
);
ALTER TABLE deliveries ADD COLUMN payload_id INTEGER REFERENCES delivery_payloads (id);
CREATE INDEX deliveries_by_payload ON deliveries (payload_id) WHERE payload_id IS NOT NULL;
CREATE TRIGGER delivery_payload_follows_its_deliveries AFTER DELETE ON deliveries
WHEN old.payload_id IS NOT NULL
BEGIN
  DELETE FROM delivery_payloads WHERE id = old.payload_id
    AND NOT EXISTS (SELECT 1 FROM deliveries WHERE payload_id = old.payload_id);
END;
