-- Mail to addresses that are not mailboxes of this emulator is captured here instead of being
-- sent: the control plane lists it and serves each message as its raw .eml.
CREATE TABLE outbox (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  sent_email_id    TEXT,
  envelope_from    TEXT NOT NULL,
  recipients_json  TEXT NOT NULL,
  subject          TEXT NOT NULL,
  message_id       TEXT NOT NULL,
  size             INTEGER NOT NULL,
  raw              BLOB NOT NULL,
  created_at       TEXT NOT NULL
);
