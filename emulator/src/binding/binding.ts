/**
 * A binding as the emulator speaks it: how one deployment names and answers what the service
 * document leaves "not shown" (spec/binding.schema.json, spec/bindings/decisions.yaml). Only
 * this folder knows the type: routes, services and the store keep mailtwin's own names, and the
 * dialect (dialect.ts) maps at the edge.
 */

/** A path into a record (`a.b`, `a[]`), or null when the deployment has no such field. */
export type FieldPath = string | null;

/** The email record's entries (§2.3 "Complete field list and names of the email record: not shown"). */
export const EMAIL_FIELDS = [
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'senderAddress',
  'senderName',
  'toAddress',
  'toName',
  'ccAddress',
  'ccName',
  'subject',
  'snippet',
  'attachmentCount',
  'receivedAt',
  'bccAddress',
  'bccName',
  'replyToAddress',
  'replyToName',
  'sentAt',
  'messageId',
  'inReplyTo',
  'references',
  'text',
  'html',
  'preheader',
  'attachmentId',
  'attachmentName',
  'attachmentContentType',
  'attachmentSize',
] as const;
export type EmailField = (typeof EMAIL_FIELDS)[number];

/** §6.2: `data` beyond id and mailbox ("Field names of data beyond id and mailbox: not shown"). */
export const WEBHOOK_DATA_FIELDS = [
  'senderAddress',
  'senderName',
  'toAddress',
  'toName',
  'ccAddress',
  'ccName',
  'subject',
  'text',
  'html',
  'attachmentId',
  'attachmentName',
  'attachmentContentType',
  'attachmentSize',
  'receivedAt',
] as const satisfies readonly EmailField[];
export type WebhookDataField = (typeof WEBHOOK_DATA_FIELDS)[number];

export const OPERATIONS = [
  'listMailboxes',
  'listEmails',
  'getEmail',
  'updateEmail',
  'sendEmail',
  'replyToEmail',
  'forwardEmail',
  'uploadAttachment',
  'downloadAttachment',
] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** Send, reply and forward: their answer may be the created email or only a reference to it. */
export const CREATING_OPERATIONS = ['sendEmail', 'replyToEmail', 'forwardEmail'] as const;
export type CreatingOperation = (typeof CREATING_OPERATIONS)[number];

export interface OperationBinding {
  /** The success status (§4.3 "Success response body shape: not shown"). */
  status: number;
  /** Send, reply, forward: the created email as a record, or an answer that only names it. */
  answer?: 'email' | 'reference';
  /** Where the created email's id is: `body:<JSON pointer>` or `header:<name>`. */
  emailId?: string;
}

/** One error condition's status and code (§7 "The list of code values: not shown"). */
export interface ErrorBinding {
  status: number;
  code: string;
}

/** A whole binding: a file's entries merged over the default (load.ts). */
export interface Binding {
  binding: 1;
  name?: string;
  mailboxes: {
    array: string | null;
    address: string;
    domain: FieldPath;
    displayName: FieldPath;
  };
  list: { array: string };
  email: Record<EmailField, FieldPath>;
  webhookData: Record<WebhookDataField, FieldPath>;
  update: { folder: string; read: string; starred: string };
  send: { preheader: string | null };
  forward: { recipient: FieldPath };
  operations: Record<OperationName, OperationBinding>;
  /** By mailtwin's own code (errors.ts), the status and code the deployment answers. */
  errors: Record<string, ErrorBinding>;
  folders: { names: string[]; sent: string; received: string };
}
