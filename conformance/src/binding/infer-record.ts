/**
 * The email record's fields (§2.3, D-3, D-4) and those of email.received's `data` (§6.2, D-37),
 * found in the document's GET /emails items and GET /emails/{emailId} answer by the names
 * well-known APIs give them, the PATCH body's names anchoring folder, read and starred.
 */
import {
  EMAIL_FIELDS,
  WEBHOOK_DATA_FIELDS,
  defaultBinding,
  type EmailField,
  type WebhookDataField,
} from './binding.ts';
import type { InferenceDraft } from './inference-draft.ts';
import { isObject, type Located } from './openapi-walk.ts';

/** Names of a field in well-known APIs (Gmail, Graph, Postmark, Resend, SendGrid, Mailgun). */
export const NAMES: Record<EmailField, RegExp> = {
  id: /^(id|emailId|messageId|email_id)$/i,
  mailbox: /^(mailbox|mailboxAddress|mailbox_address|account|inbox)$/i,
  folder: /^(folder|folderName|parentFolder|parentFolderId|label|mailboxFolder)$/i,
  read: /^(read|isRead|is_read|seen|unread)$/i,
  starred: /^(starred|isStarred|is_starred|flagged|isFlagged|flag|pinned)$/i,
  senderAddress: /^(from|sender)$/i,
  senderName: /^(from|sender)$/i,
  toAddress: /^(to|toRecipients|to_recipients|recipients)$/i,
  toName: /^(to|toRecipients|to_recipients|recipients)$/i,
  ccAddress: /^(cc|ccRecipients|cc_recipients)$/i,
  ccName: /^(cc|ccRecipients|cc_recipients)$/i,
  bccAddress: /^(bcc|bccRecipients|bcc_recipients)$/i,
  bccName: /^(bcc|bccRecipients|bcc_recipients)$/i,
  replyToAddress: /^(replyTo|reply_to|replyToRecipients)$/i,
  replyToName: /^(replyTo|reply_to|replyToRecipients)$/i,
  subject: /^(subject|title)$/i,
  snippet: /^(snippet|preview|bodyPreview|excerpt|summary)$/i,
  text: /^(text|textBody|text_body|plainText|bodyText|plain)$/i,
  html: /^(html|htmlBody|html_body|bodyHtml)$/i,
  preheader: /^(preheader|previewText|preview_text)$/i,
  attachmentCount: /^(attachmentCount|attachment_count|attachmentsCount|numAttachments)$/i,
  attachmentId: /^(attachments|files)$/i,
  attachmentName: /^(attachments|files)$/i,
  attachmentContentType: /^(attachments|files)$/i,
  attachmentSize: /^(attachments|files)$/i,
  receivedAt: /^(receivedAt|received_at|receivedDateTime|received|date)$/i,
  sentAt: /^(sentAt|sent_at|sentDateTime|sent)$/i,
  messageId: /^(messageId|message_id|internetMessageId|rfcMessageId)$/i,
  inReplyTo: /^(inReplyTo|in_reply_to)$/i,
  references: /^(references)$/i,
};

/** Fields §2.3 says an email has: not found in the document, they keep the default. */
const DOCUMENTED_FIELDS = new Set<EmailField>([
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'senderAddress',
  'toAddress',
  'subject',
  'attachmentId',
]);

/** An address inside an address object. */
export const ADDRESS = /^(address|email|emailAddress|email_address|addr)$/i;
const NAME = /^(name|displayName|display_name)$/i;
const ATTACHMENT_PART: Partial<Record<EmailField, RegExp>> = {
  attachmentId: /^(id|attachmentId|attachment_id)$/i,
  attachmentName: /^(name|filename|fileName|file_name)$/i,
  attachmentContentType: /^(contentType|content_type|mimeType|mime_type|type)$/i,
  attachmentSize: /^(size|bytes|length)$/i,
};

/** The email record: list items and detail together (a detail adds to the summary). */
export function inferRecord(draft: InferenceDraft, listItems: Located | undefined): void {
  const fields = new Map<string, Located>();
  const detail = draft.successSchema('get', '/emails/{emailId}');
  for (const schema of [detail, listItems])
    if (schema !== undefined)
      for (const [name, at] of draft.walk.properties(schema))
        if (!fields.has(name)) fields.set(name, at);
  if (fields.size === 0) return;
  // The PATCH body's names find the same attributes in the record.
  const anchors: Partial<Record<EmailField, string>> = {
    folder: draft.binding.update.folder,
    read: draft.binding.update.read,
    starred: draft.binding.update.starred,
  };
  const defaults = defaultBinding().email;
  for (const field of EMAIL_FIELDS) {
    const path = fieldPath(
      draft,
      `/email/${field}`,
      field,
      fields,
      anchors[field] ?? topOf(defaults[field]),
    );
    if (path !== undefined) draft.set(`/email/${field}`, path[0], path[1]);
    else if (!DOCUMENTED_FIELDS.has(field))
      draft.set(
        `/email/${field}`,
        null,
        `${detail?.pointer ?? listItems?.pointer} (no such field)`,
      );
  }
  const event = webhookData(draft);
  if (event !== undefined) webhookDataFields(draft, event);
  else {
    // No webhook section: `data` is the email record (D-37), in the record's names.
    for (const field of WEBHOOK_DATA_FIELDS) {
      draft.binding.webhookData[field] = draft.binding.email[field];
      draft.sources[`/webhookData/${field}`] = draft.sources[`/email/${field}`] ?? 'default';
    }
  }
}

/**
 * The fields of email.received's `data`: id and mailbox by §6.2's names, every other field
 * of the record by the record's names (D-37), and those the webhook entries name found by
 * name. One the record has but `data` shows under no known name, while `data` has a property
 * nothing explains, is ambiguous (those properties are its candidates); with none left, the
 * deployment's data has no such field.
 */
function webhookDataFields(draft: InferenceDraft, event: Located): void {
  const data = draft.walk.properties(event);
  const defaults = defaultBinding().email;
  const explained = new Set<string>(['id', 'mailbox']);
  for (const field of EMAIL_FIELDS) {
    const path = draft.binding.email[field];
    if (!(WEBHOOK_DATA_FIELDS as readonly string[]).includes(field) && path !== null)
      explained.add(topOf(path)!);
  }
  const missing: WebhookDataField[] = [];
  for (const field of WEBHOOK_DATA_FIELDS) {
    const path = fieldPath(draft, `/webhookData/${field}`, field, data, topOf(defaults[field]));
    if (path === undefined) {
      missing.push(field);
      continue;
    }
    draft.set(`/webhookData/${field}`, path[0], path[1]);
    explained.add(topOf(path[0])!);
  }
  const unexplained = [...data].filter(([name]) => !explained.has(name));
  for (const field of missing) {
    if (draft.binding.email[field] !== null && unexplained.length > 0)
      draft.ambiguous.push({
        entry: `/webhookData/${field}`,
        candidates: unexplained.map(([name, at]) => `${name} (${at.pointer})`),
      });
    else draft.set(`/webhookData/${field}`, null, `${event.pointer} (no such field)`);
  }
}

function webhookData(draft: InferenceDraft): Located | undefined {
  const webhooks = draft.walk.child({ node: draft.walk.document, pointer: '#' }, 'webhooks');
  if (!isObject(webhooks.node)) return undefined;
  for (const name of Object.keys(webhooks.node)) {
    const post = draft.walk.child(webhooks, name, 'post');
    const schema = draft.walk.jsonSchema(draft.walk.child(post, 'requestBody'));
    if (schema === undefined) continue;
    const event = draft.walk.properties(schema).get('event');
    const constant = isObject(event?.node)
      ? (event.node.const ?? (event.node.enum as unknown[] | undefined)?.[0])
      : undefined;
    if (constant !== undefined && constant !== 'email.received') continue;
    const data = draft.walk.properties(schema).get('data');
    if (data !== undefined) return data;
  }
  return undefined;
}

/** The path of one field in a record's properties: its top property, then inside it. */
function fieldPath(
  draft: InferenceDraft,
  entry: string,
  field: EmailField,
  fields: Map<string, Located>,
  defaultTop: string | undefined,
): [string, string] | undefined {
  const accept = (at: Located) => fits(draft, field, at);
  const top = draft.pick(entry, fields, defaultTop, NAMES[field], accept);
  if (top === undefined) return undefined;
  const [name, at] = top;
  const types = draft.walk.types(at);
  const part = ATTACHMENT_PART[field];
  const wantsName = field.endsWith('Name') && field !== 'attachmentName';
  const inner = part ?? (wantsName ? NAME : ADDRESS);
  if (
    (field.startsWith('attachment') && field !== 'attachmentCount') ||
    /^(to|cc|bcc|replyTo)(Address|Name)$/.test(field) ||
    field === 'references'
  ) {
    if (!types.includes('array')) return undefined;
    const items = draft.walk.items(at);
    if (items === undefined) return undefined;
    if (field === 'references' || draft.walk.types(items).includes('string'))
      return wantsName ? undefined : [`${name}[]`, at.pointer];
    const rest = innerPath(
      draft,
      items,
      inner,
      0,
      field === 'attachmentSize' ? 'integer' : 'string',
    );
    return rest === undefined ? undefined : [`${name}[].${rest[0]}`, rest[1]];
  }
  if (field === 'senderAddress' || field === 'senderName') {
    if (types.includes('string')) return wantsName ? undefined : [name, at.pointer];
    const rest = innerPath(draft, at, inner);
    return rest === undefined ? undefined : [`${name}.${rest[0]}`, rest[1]];
  }
  return [name, at.pointer];
}

/** Whether a property can hold the field (types agree). */
function fits(draft: InferenceDraft, field: EmailField, at: Located): boolean {
  const types = draft.walk.types(at);
  if (types.length === 0) return true;
  if (field === 'read' || field === 'starred') return types.includes('boolean');
  if (field === 'attachmentCount') return types.includes('integer') || types.includes('number');
  if (/Address$|Name$/.test(field) || field.startsWith('attachment') || field === 'references')
    return types.some((t) => ['string', 'object', 'array'].includes(t));
  return types.includes('string');
}

/** `address` or `emailAddress.address` inside an address object (Graph nests one). */
export function innerPath(
  draft: InferenceDraft,
  object: Located,
  pattern: RegExp,
  depth = 0,
  type = 'string',
): [string, string] | undefined {
  const properties = draft.walk.properties(object);
  const direct = [...properties].filter(
    ([name, at]) => pattern.test(name) && draft.walk.types(at).includes(type),
  );
  if (direct.length === 1) return [direct[0]![0], direct[0]![1].pointer];
  if (depth > 1) return undefined;
  for (const [name, at] of properties) {
    if (!draft.walk.types(at).includes('object')) continue;
    const rest = innerPath(draft, at, pattern, depth + 1, type);
    if (rest !== undefined) return [`${name}.${rest[0]}`, rest[1]];
  }
  return undefined;
}

/** The top property of a record path: `from` of `from.address`, `to` of `to[].name`. */
function topOf(path: string | null): string | undefined {
  return path === null ? undefined : path.split('.')[0]!.replace(/\[\]$/, '');
}
