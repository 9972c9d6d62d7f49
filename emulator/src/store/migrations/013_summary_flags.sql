-- A summary's ready JSON (migration 006) holds its folder, read and starred too, written again
-- whenever one of them changes (a PATCH, the dashboard), so a page of GET /emails reads one text
-- a row and fills nothing in (store/summary-json.ts; issue 31 item 1). The trigger calls the
-- store's SQL function, which every connection the emulator opens registers (email-store.ts)
-- before it writes an email; the summaries written with placeholders before this migration are
-- written again at open, as their shape differs (refreshSummaries).
CREATE TRIGGER emails_summary_flags AFTER UPDATE OF folder, read, starred ON emails
BEGIN
  UPDATE emails SET summary_json = mailtwin_summary_json(NEW.id, NEW.mailbox, NEW.from_address,
    NEW.from_name, NEW.to_json, NEW.cc_json, NEW.subject, NEW.snippet, NEW.received_at,
    NEW.attachment_count, NEW.folder, NEW.read, NEW.starred)
  WHERE seq = NEW.seq;
END;
