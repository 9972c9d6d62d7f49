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

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const FOLDER_JSON = new Map<string, Buffer>();
function folderJson(folder: string): Buffer {
  let bytes = FOLDER_JSON.get(folder);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(folder));
    FOLDER_JSON.set(folder, bytes);
  }
  return bytes;
}

/** Appends to `out` the pieces of the summary's JSON with its current folder, read, starred. */
export function fillSummary(
  out: Uint8Array[],
  template: Buffer,
  folder: string,
  read: number,
  starred: number,
): void {
  // Each placeholder occurs at most once; indexOf is a native byte search.
  const places = [template.indexOf(FOLDER), template.indexOf(READ), template.indexOf(STARRED)]
    .filter((at) => at >= 0)
    .sort((a, b) => a - b);
  let from = 0;
  for (const at of places) {
    const byte = template[at];
    out.push(template.subarray(from, at));
    out.push(
      byte === FOLDER ? folderJson(folder) : (byte === READ ? read : starred) === 1 ? TRUE : FALSE,
    );
    from = at + 1;
  }
  out.push(template.subarray(from));
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
