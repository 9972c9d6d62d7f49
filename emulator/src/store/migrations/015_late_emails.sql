-- An email is "late" when its mailbox held, as it was stored, an email newer than it (later in
-- the newest-first order of D-17: receivedAt, then id): mail received in the order it was
-- stored has none. A search page reads the newest matches in the order mail was stored (the
-- full-text index's rowid, emails.seq) and stops at its last row (page-query.ts, the newest
-- plan): while none of its rows is late, no email stored earlier can be newer than any of them,
-- so they are the page, in order; one late row and the page is read by another plan. Deleting
-- an email never makes another late; received_at and mailbox never change after an email is
-- stored. The flag errs only towards late (ties of receivedAt below), which costs time, never
-- a row.
ALTER TABLE emails ADD COLUMN late INTEGER NOT NULL DEFAULT 0;

-- Emails already stored: late when an email of the same mailbox stored before it was received
-- at the same time or later (ties counted late whatever their ids).
UPDATE emails SET late = 1 WHERE seq IN (
  SELECT seq FROM (
    SELECT seq, received_at, max(received_at) OVER (
      PARTITION BY mailbox ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
    ) AS newest_before
    FROM emails
  ) WHERE received_at <= newest_before
);

-- Each new email (the highest seq yet: emails.seq is AUTOINCREMENT), from the mailbox's index:
-- in mail stored as received the seek finds nothing newer.
CREATE TRIGGER emails_late AFTER INSERT ON emails
WHEN EXISTS (
  SELECT 1 FROM emails o
  WHERE o.mailbox = NEW.mailbox AND o.received_at >= NEW.received_at AND o.seq <> NEW.seq
    AND (o.received_at > NEW.received_at OR o.id > NEW.id)
)
BEGIN
  UPDATE emails SET late = 1 WHERE seq = NEW.seq;
END;
