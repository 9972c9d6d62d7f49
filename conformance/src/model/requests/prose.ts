/**
 * What the contract's prose adds to the schemas: the named hook each field's values come from
 * (addresses, uploads, search words, dates, cursors), §4.3 rule 1's body rule, which fields
 * templates apply to (§2.6), reserved variables (D-24) and the domains and folders the suite
 * may use.
 */
import { contract, propertiesOf, type OperationInfo } from './operations.ts';
import type { RequestKind, Schema } from './request-types.ts';

/** A rule of the prose about one field, beyond its schema. */
export type Prose =
  | 'sender' // D-11 and §4.3: an address of a mailbox the key may touch
  | 'recipient' // D-11: local@domain or Name <local@domain>
  | 'upload' // §2.4: an upload id of the key's owner
  | 'mailbox' // §4.2: a mailbox the key may touch, compared case-insensitively
  | 'search' // D-13: at least one word (letters or digits)
  | 'date' // D-18: RFC 3339 with Z or an offset, or YYYY-MM-DD
  | 'cursor'; // D-16: opaque, only as returned by a previous page

/** Keys are property names; `[]` marks the items of an array. */
const BODY_PROSE: Record<string, Prose> = {
  from: 'sender',
  to: 'recipient',
  'cc[]': 'recipient',
  'bcc[]': 'recipient',
  'attachmentIds[]': 'upload',
};

const QUERY_PROSE: Record<string, Prose> = {
  mailbox: 'mailbox',
  q: 'search',
  dateFrom: 'date',
  dateTo: 'date',
  cursor: 'cursor',
};

/** §4.3 rule 1 (and §4.7, §4.8): the body fields of a message. */
export const BODY_FIELDS = ['markdown', 'html', 'text'];

/** D-24 (§2.6): names the service supplies; a caller may not. */
export const RESERVED_VARIABLES = ['email', 'unsubscribe_url'];

/** D-5: the folder schema's own error code. */
export const ENUM_CODES: Record<string, string> = { Folder: 'invalid_folder' };

/** The only domain, besides the tenant's, that generated mail may go to. */
export const EXTERNAL_DOMAIN = 'external.conformance.test';

/** The folders §3.1 names. */
export const DOCUMENTED_FOLDERS = ['inbox', 'trash'];

export function proseOf(kind: RequestKind, key: string): Prose | undefined {
  return (kind === 'query' ? QUERY_PROSE : BODY_PROSE)[key];
}

/** §4.3 rule 1 as the operation's error codes tell it. */
export function bodyRule(info: OperationInfo): 'exactly-one' | 'at-most-one' | undefined {
  const names = propertiesOf(contract(), info.schema).map(([n]) => n);
  if (!BODY_FIELDS.every((f) => names.includes(f))) return undefined;
  if (info.badRequestCodes.includes('body_required')) return 'exactly-one';
  if (info.badRequestCodes.includes('body_conflict')) return 'at-most-one';
  return undefined;
}

/** §2.6: the fields templates apply to say so in their description. */
export function isTemplated(schema: Schema): boolean {
  return /\bVariables apply\b/.test(String(schema.description ?? ''));
}
