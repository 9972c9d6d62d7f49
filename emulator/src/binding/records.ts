/**
 * The emulator's records in a deployment's names: the email record (§2.3 "Complete field list
 * and names of the email record: not shown"), the mailbox record (§2.2 "Fields of the mailbox
 * record: not shown") and the `data` of email.received (§6.2). Each entry of the binding is a
 * path (paths.ts); a null path leaves the field out.
 */
import {
  EMAIL_FIELDS,
  WEBHOOK_DATA_FIELDS,
  type Binding,
  type EmailField,
  type FieldPath,
} from './binding.ts';
import { wireFolder, type FolderMap } from './folders.ts';
import { parsePath, writePath, type RecordPath } from './paths.ts';

type Json = Record<string, unknown>;

/** Where each entry's value is in the emulator's own record (domain/email-view.ts). */
interface Source {
  /** The record's own field. */
  field: string;
  /** For a list or an object of the record: the member of each item (null: the item itself). */
  member?: string | null;
  /** The field is a list of items. */
  list?: boolean;
}

export const SOURCES: Record<EmailField, Source> = {
  id: { field: 'id' },
  mailbox: { field: 'mailbox' },
  folder: { field: 'folder' },
  read: { field: 'read' },
  starred: { field: 'starred' },
  senderAddress: { field: 'from', member: 'address' },
  senderName: { field: 'from', member: 'name' },
  toAddress: { field: 'to', member: 'address', list: true },
  toName: { field: 'to', member: 'name', list: true },
  ccAddress: { field: 'cc', member: 'address', list: true },
  ccName: { field: 'cc', member: 'name', list: true },
  subject: { field: 'subject' },
  snippet: { field: 'snippet' },
  attachmentCount: { field: 'attachmentCount' },
  receivedAt: { field: 'receivedAt' },
  bccAddress: { field: 'bcc', member: 'address', list: true },
  bccName: { field: 'bcc', member: 'name', list: true },
  replyToAddress: { field: 'replyTo', member: 'address', list: true },
  replyToName: { field: 'replyTo', member: 'name', list: true },
  sentAt: { field: 'sentAt' },
  messageId: { field: 'messageId' },
  inReplyTo: { field: 'inReplyTo' },
  references: { field: 'references', member: null, list: true },
  text: { field: 'text' },
  html: { field: 'html' },
  preheader: { field: 'preheader' },
  attachmentId: { field: 'attachments', member: 'id', list: true },
  attachmentName: { field: 'attachments', member: 'name', list: true },
  attachmentContentType: { field: 'attachments', member: 'contentType', list: true },
  attachmentSize: { field: 'attachments', member: 'size', list: true },
};

/** Entries with their parsed paths, in the order the emulator's own record lists them. */
export type RecordLayout = readonly { field: EmailField; path: RecordPath }[];

export function layoutOf(paths: Partial<Record<EmailField, FieldPath>>): RecordLayout {
  return EMAIL_FIELDS.flatMap((field) => {
    const path = paths[field];
    return path === null || path === undefined ? [] : [{ field, path: parsePath(path) }];
  });
}

/** The email record (`email`) layout. */
export function emailLayout(binding: Binding): RecordLayout {
  return layoutOf(binding.email);
}

/**
 * The `data` of email.received: id and mailbox keep their names (§6.2), the entries of
 * `webhookData` are placed as it says, and the rest of the record as `email` says.
 */
export function webhookDataLayout(binding: Binding): RecordLayout {
  const paths: Partial<Record<EmailField, FieldPath>> = { ...binding.email };
  for (const field of WEBHOOK_DATA_FIELDS) paths[field] = binding.webhookData[field];
  paths.id = 'id';
  paths.mailbox = 'mailbox';
  return layoutOf(paths);
}

/** One of the emulator's email records (summary or detail) in the layout's names. */
export function renderEmail(record: Json, layout: RecordLayout, folders: FolderMap): Json {
  const out: Json = {};
  for (const { field, path } of layout) {
    const source = SOURCES[field];
    if (!Object.hasOwn(record, source.field)) continue; // a summary has no detail fields
    const raw = record[source.field];
    let value: unknown;
    if (source.list) {
      const items = Array.isArray(raw) ? raw : [];
      const values = items.map((item) =>
        source.member === null ? item : (item as Json | null)?.[source.member as string],
      );
      // A path without [] holds one value: the first, or null when there is none.
      value = path.some((s) => s.each) ? values : (values[0] ?? null);
    } else if (source.member !== undefined) {
      value = raw === null || raw === undefined ? null : (raw as Json)[source.member as string];
    } else {
      value = field === 'folder' ? wireFolder(folders, raw) : raw;
    }
    writePath(out, path, value);
  }
  return out;
}

/** A mailbox record (`{address, domain, displayName}`, D-1) in the binding's names. */
export function renderMailbox(record: Json, mailboxes: Binding['mailboxes']): Json {
  const out: Json = {};
  writePath(out, parsePath(mailboxes.address), record.address);
  if (mailboxes.domain !== null) writePath(out, parsePath(mailboxes.domain), record.domain);
  if (mailboxes.displayName !== null)
    writePath(out, parsePath(mailboxes.displayName), record.displayName);
  return out;
}

/** GET /mailboxes in the binding's shape: a bare array, or the array under a property. */
export function renderMailboxList(records: unknown, mailboxes: Binding['mailboxes']): unknown {
  const items = (Array.isArray(records) ? records : []).map((m) =>
    renderMailbox(m as Json, mailboxes),
  );
  return mailboxes.array === null ? items : { [mailboxes.array]: items };
}
