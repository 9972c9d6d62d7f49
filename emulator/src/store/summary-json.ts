import { emailSummary } from '../domain/email-view.ts';
import type { EmailSummary } from '../domain/types.ts';

/**
 * A summary kept as JSON text in its row (migrations 006 and 013), so a page of GET /emails is
 * written by joining stored texts instead of parsing, re-serialising and re-encoding every row.
 * The text is `emailSummary` serialised, the one definition of the shape (D-3), with every value
 * final: a PATCH's change of folder, read or starred writes it again (migration 013's trigger),
 * so a page reads one text a row and substitutes nothing (issue 31 item 1).
 *
 * `summary` must be what the row reads back as (the store renders it in SQL from the row), so
 * SQLite's UTF-8 round trip of odd text (a lone surrogate) is included as it was when rows were
 * serialised on each read. JSON.stringify escapes any lone surrogate, so the text is stored as
 * it is written.
 */
export function summaryJson(summary: EmailSummary): string {
  return JSON.stringify(emailSummary(summary));
}

/**
 * What identifies the shape: the text of a fixed example. A `--db` file whose stored shape
 * differs (written before migration 006, with the placeholders of before migration 013, or by
 * a version with another summary) has its summaries written again when opened.
 */
export function summaryShape(): string {
  return summaryJson({
    id: 'id',
    mailbox: 'm',
    folder: 'inbox',
    read: false,
    starred: true,
    from: { address: 'a', name: null },
    to: [],
    cc: [],
    subject: 's',
    snippet: 'n',
    receivedAt: 't',
    attachmentCount: 0,
  });
}
