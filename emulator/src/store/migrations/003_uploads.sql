-- Uploaded files (§2.4, §4.9): owned by the uploading key's owner (D-32), bytes in blobs,
-- reachable without a key through an unguessable token in their public URL (D-43).
CREATE TABLE uploads (
  id            TEXT PRIMARY KEY,
  owner_id      TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  size          INTEGER NOT NULL,
  blob_sha256   TEXT NOT NULL REFERENCES blobs (sha256),
  url_token     TEXT NOT NULL UNIQUE,
  created_at    TEXT NOT NULL
);
CREATE INDEX uploads_by_owner ON uploads (owner_id);
