-- Each email's summary kept as ready JSON (UTF-8 bytes), so a page of GET /emails copies bytes
-- instead of parsing, re-serialising and re-encoding every row (store/summary-json.ts). The
-- store fills it: with each new email, and at open for rows of an older --db file (NULL until
-- then).
ALTER TABLE emails ADD COLUMN summary_json BLOB;
