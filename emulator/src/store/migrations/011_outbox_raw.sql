-- A captured message's bytes are written in a turn of the event loop of their own, before the
-- outbox entry that names them (issue 27 item 1): a 5 MB message and the entry's 5 MB
-- lower-cased text written in one statement held every other request for both. Until its entry
-- is written a staged message is seen by nothing (every reader starts from `outbox`); the
-- entry's row keeps an empty `raw`, and an entry written before this keeps its bytes there.
-- A staged message whose entry never came (the process stopped in between) is dropped when the
-- store opens; deleting an entry (or the whole outbox) deletes its bytes.
CREATE TABLE outbox_raw (
  outbox_id  TEXT PRIMARY KEY,
  raw        BLOB NOT NULL
);
CREATE TRIGGER outbox_raw_follows_its_entry AFTER DELETE ON outbox
BEGIN
  DELETE FROM outbox_raw WHERE outbox_id = old.id;
END;
