import { randomUUID } from 'node:crypto';
import { emailSummary } from '../domain/email-view.ts';
import type { EmailSummary } from '../domain/types.ts';

/**
 * A summary kept as UTF-8 JSON bytes in its row (migration 006), so a page of GET /emails is
 * written by copying bytes instead of parsing, re-serialising and re-encoding every row. The
 * bytes are `emailSummary` serialised, the one definition of the shape (D-3), with the three
 * values a PATCH changes (folder, read, starred) left as placeholder bytes 0x01-0x03: raw
 * control characters, which JSON.stringify never writes (it escapes them) and which UTF-8
 * never uses inside a longer character, so they cannot clash with any content.
 */
const FOLDER = 0x01;
const READ = 0x02;
const STARRED = 0x03;

/** Marks the mutable values while serialising; random, so no content can contain it. */
const MARK = `\u0000${randomUUID()}`;

/**
 * The stored bytes of a summary whose other values are final. `summary` must be what the row
 * reads back as (the store renders it in SQL from the row), so SQLite's UTF-8 round trip of
 * odd text (a lone surrogate) is included as it was when rows were serialised on each read.
 */
export function summaryTemplate(
  summary: Omit<EmailSummary, 'folder' | 'read' | 'starred'>,
): Buffer {
  const marked = emailSummary({
    ...summary,
    folder: `${MARK}f` as EmailSummary['folder'],
    read: `${MARK}r` as unknown as boolean,
    starred: `${MARK}s` as unknown as boolean,
  });
  const text = JSON.stringify(marked)
    .replace(JSON.stringify(`${MARK}f`), String.fromCharCode(FOLDER))
    .replace(JSON.stringify(`${MARK}r`), String.fromCharCode(READ))
    .replace(JSON.stringify(`${MARK}s`), String.fromCharCode(STARRED));
  return Buffer.from(text, 'utf8');
}

/**
 * The summary's JSON with its current folder, read and starred, from the stored bytes read as
 * text (`CAST(summary_json AS TEXT)`): SQLite hands a row's text to JavaScript as a string for
 * about a tenth of what a blob costs as a Buffer (each its own allocation, counted against the
 * heap), so a page of 100 summaries is read as strings and encoded once (email-store.ts,
 * listJson). The stored bytes are UTF-8 written by Buffer.from, so reading them as text and
 * encoding the page again gives the same bytes.
 */
export function summaryText(
  template: string,
  folder: string,
  read: number,
  starred: number,
): string {
  // Each placeholder occurs at most once; the shape puts them in this order (emailSummary).
  const f = template.indexOf(FOLDER_CHAR);
  const r = template.indexOf(READ_CHAR, f + 1);
  const s = template.indexOf(STARRED_CHAR, r + 1);
  if (f < 0 || r < 0 || s < 0) return summaryTextInAnyOrder(template, folder, read, starred);
  return (
    template.slice(0, f) +
    folderText(folder) +
    template.slice(f + 1, r) +
    (read === 1 ? 'true' : 'false') +
    template.slice(r + 1, s) +
    (starred === 1 ? 'true' : 'false') +
    template.slice(s + 1)
  );
}

const FOLDER_CHAR = String.fromCharCode(FOLDER);
const READ_CHAR = String.fromCharCode(READ);
const STARRED_CHAR = String.fromCharCode(STARRED);
const FOLDER_TEXT = new Map<string, string>();
function folderText(folder: string): string {
  let text = FOLDER_TEXT.get(folder);
  if (text === undefined) {
    text = JSON.stringify(folder);
    FOLDER_TEXT.set(folder, text);
  }
  return text;
}

/** summaryText for a template whose placeholders are missing or in another order. */
function summaryTextInAnyOrder(
  template: string,
  folder: string,
  read: number,
  starred: number,
): string {
  return template.replace(/[\u0001-\u0003]/g, (c) =>
    c === FOLDER_CHAR
      ? folderText(folder)
      : (c === READ_CHAR ? read : starred) === 1
        ? 'true'
        : 'false',
  );
}

/**
 * What identifies the shape: the template of a fixed example. A `--db` file whose stored
 * shape differs (written before migration 006, or by a version with another summary) has its
 * summaries written again when opened.
 */
export function summaryShape(): string {
  return summaryTemplate({
    id: 'id',
    mailbox: 'm',
    from: { address: 'a', name: null },
    to: [],
    cc: [],
    subject: 's',
    snippet: 'n',
    receivedAt: 't',
    attachmentCount: 0,
  }).toString('base64');
}
