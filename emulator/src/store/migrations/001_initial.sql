-- Owners, the mailboxes they are granted, their API keys, the email of every mailbox, and the
-- bytes of attachments, stored once. Addresses are stored lower case; timestamps as ISO 8601 UTC
-- with milliseconds, which sort as text in time order.

CREATE TABLE owners (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  disabled    INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created_at  TEXT NOT NULL
);

CREATE TABLE domains (
  name        TEXT PRIMARY KEY
);

CREATE TABLE mailboxes (
  address       TEXT PRIMARY KEY,
  domain        TEXT NOT NULL REFERENCES domains (name),
  display_name  TEXT
);
CREATE INDEX mailboxes_by_domain ON mailboxes (domain);

-- An owner is granted mailboxes, many to many (§2.1 "the key acts as its owner").
CREATE TABLE grants (
  owner_id  TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
  mailbox   TEXT NOT NULL REFERENCES mailboxes (address) ON DELETE CASCADE,
  PRIMARY KEY (owner_id, mailbox)
);

-- Keys are found by their public lookup part, then the SHA-256 of the whole secret is compared
-- in constant time; the secret itself is never stored.
CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  owner_id      TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  scope         TEXT NOT NULL CHECK (scope IN ('follow-owner', 'one-domain', 'selected-mailbox')),
  scope_domain  TEXT,
  lookup        TEXT NOT NULL UNIQUE,
  secret_hash   BLOB NOT NULL,
  disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created_at    TEXT NOT NULL,
  CHECK ((scope = 'one-domain') = (scope_domain IS NOT NULL))
);

CREATE TABLE api_key_mailboxes (
  key_id   TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  mailbox  TEXT NOT NULL,
  PRIMARY KEY (key_id, mailbox)
);

CREATE TABLE emails (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  mailbox          TEXT NOT NULL REFERENCES mailboxes (address) ON DELETE CASCADE,
  folder           TEXT NOT NULL CHECK (folder IN ('inbox', 'sent', 'archive', 'spam', 'trash')),
  read             INTEGER NOT NULL CHECK (read IN (0, 1)),
  starred          INTEGER NOT NULL CHECK (starred IN (0, 1)),
  from_address     TEXT NOT NULL,
  from_name        TEXT,
  to_json          TEXT NOT NULL,
  cc_json          TEXT NOT NULL,
  bcc_json         TEXT NOT NULL,
  reply_to_json    TEXT NOT NULL,
  subject          TEXT NOT NULL,
  snippet          TEXT NOT NULL,
  preheader        TEXT,
  message_id       TEXT NOT NULL,
  in_reply_to      TEXT,
  references_json  TEXT NOT NULL,
  received_at      TEXT NOT NULL,
  sent_at          TEXT,
  attachment_count INTEGER NOT NULL DEFAULT 0,
  -- Lower-cased copies for the substring filters of D-14.
  from_search      TEXT NOT NULL,
  subject_search   TEXT NOT NULL
);
-- Newest-first with the id tie-break (D-17), per mailbox and per mailbox + folder.
CREATE INDEX emails_by_mailbox ON emails (mailbox, received_at DESC, id DESC);
CREATE INDEX emails_by_folder ON emails (mailbox, folder, received_at DESC, id DESC);

-- Bodies live apart from the listing columns: a large row would make every page of a list
-- read overflow pages it does not need.
CREATE TABLE email_contents (
  seq        INTEGER PRIMARY KEY REFERENCES emails (seq) ON DELETE CASCADE,
  text_body  TEXT,
  html_body  TEXT,
  -- The raw RFC 822 message when one exists (sent, or injected raw).
  raw        BLOB
);

-- Free-text search (D-13): whole words, case- and accent-insensitive, prefix on request.
CREATE VIRTUAL TABLE emails_fts USING fts5 (
  subject, sender, recipients, body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE blobs (
  sha256  TEXT PRIMARY KEY,
  size    INTEGER NOT NULL,
  bytes   BLOB NOT NULL
);

-- A message's own attachments (D-33): their own ids, the bytes shared through blobs.
CREATE TABLE message_attachments (
  id            TEXT PRIMARY KEY,
  email_id      TEXT NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  position      INTEGER NOT NULL,
  name          TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  size          INTEGER NOT NULL,
  blob_sha256   TEXT NOT NULL REFERENCES blobs (sha256)
);
CREATE INDEX message_attachments_by_email ON message_attachments (email_id, position);

CREATE TABLE suppressions (
  address     TEXT PRIMARY KEY,
  reason      TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
