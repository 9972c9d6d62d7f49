-- Webhooks (§2.5, §3.2, §6): configured on the control plane, never under /openapi/v1.
-- The signing secret is kept as is: signing needs it (HMAC), unlike an API key.
CREATE TABLE webhooks (
  id                    TEXT PRIMARY KEY,
  owner_id              TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
  url                   TEXT NOT NULL,
  scope                 TEXT NOT NULL CHECK (scope IN ('follow-owner', 'one-domain', 'selected-mailbox')),
  scope_domain          TEXT,
  secret                TEXT NOT NULL,
  status                TEXT NOT NULL CHECK (status IN ('active', 'paused')),
  consecutive_failures  INTEGER NOT NULL DEFAULT 0,
  created_at            TEXT NOT NULL
);

CREATE TABLE webhook_mailboxes (
  webhook_id  TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  mailbox     TEXT NOT NULL,
  PRIMARY KEY (webhook_id, mailbox)
);

-- One delivery per event and webhook; its attempts follow the retry schedule (D-34). Pending
-- deliveries survive a restart with --db and resume.
CREATE TABLE deliveries (
  id               TEXT PRIMARY KEY,
  webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event            TEXT NOT NULL,
  email_id         TEXT,
  data_json        TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'paused')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  created_at       TEXT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);

CREATE TABLE delivery_attempts (
  delivery_id  TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number       INTEGER NOT NULL,
  at           TEXT NOT NULL,
  status_code  INTEGER,
  error        TEXT,
  latency_ms   INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, number)
);
