-- Three-character prefix queries (`kal*`, D-13) read one prefix index entry instead of merging
-- the entries of every word that starts so: FTS5 keeps a prefix index only when the table is
-- created with it, so the index is made again and filled from the stored rows, with the same
-- columns, tokenizer and texts the store writes (email-store.ts: sender is "name address",
-- recipients the to then cc addresses alike, body the text).
DROP TABLE emails_fts;
CREATE VIRTUAL TABLE emails_fts USING fts5 (
  subject, sender, recipients, body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '3'
);
INSERT INTO emails_fts (rowid, subject, sender, recipients, body)
SELECT
  e.seq,
  e.subject,
  coalesce(e.from_name, '') || ' ' || e.from_address,
  coalesce((
    SELECT group_concat(
      coalesce(json_extract(a.value, '$.name'), '') || ' ' || json_extract(a.value, '$.address'),
      ' ' ORDER BY a.part, a.position)
    FROM (
      SELECT 0 AS part, key AS position, value FROM json_each(e.to_json)
      UNION ALL
      SELECT 1, key, value FROM json_each(e.cc_json)
    ) AS a
  ), ''),
  coalesce(c.text_body, '')
FROM emails e JOIN email_contents c ON c.seq = e.seq;
