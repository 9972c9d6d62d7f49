/** Plain values the domain works on; the store persists them, routes render them. */

export const FOLDERS = ['inbox', 'sent', 'archive', 'spam', 'trash'] as const;
/** D-5: the fixed, lower-case folder names. */
export type Folder = (typeof FOLDERS)[number];

export const SCOPES = ['follow-owner', 'one-domain', 'selected-mailbox'] as const;
/** §2.1: how a key narrows its owner's mailboxes. */
export type Scope = (typeof SCOPES)[number];

export interface Owner {
  id: string;
  name: string;
  disabled: boolean;
  createdAt: string;
}

export interface Mailbox {
  address: string;
  domain: string;
  displayName: string | null;
}

export interface ApiKey {
  id: string;
  ownerId: string;
  name: string;
  scope: Scope;
  /** The domain of a `one-domain` key, else null. */
  domain: string | null;
  /** The listed mailboxes of a `selected-mailbox` key, else []. */
  mailboxes: string[];
  disabled: boolean;
  createdAt: string;
}

/** What the store keeps to authenticate a key: never the secret, only its hash. */
export interface StoredKeySecret {
  lookup: string;
  secretHash: Buffer;
}

export interface Address {
  address: string;
  name: string | null;
}

export interface MessageAttachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

/** What a list shows of an email (D-3). */
export type EmailSummary = Pick<
  Email,
  | 'id'
  | 'mailbox'
  | 'folder'
  | 'read'
  | 'starred'
  | 'from'
  | 'to'
  | 'cc'
  | 'subject'
  | 'snippet'
  | 'receivedAt'
  | 'attachmentCount'
>;

/** One copy of a message in one mailbox (§2.3). */
export interface Email {
  id: string;
  mailbox: string;
  folder: Folder;
  read: boolean;
  starred: boolean;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  snippet: string;
  text: string | null;
  html: string | null;
  preheader: string | null;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  receivedAt: string;
  sentAt: string | null;
  attachmentCount: number;
  /** The message's own attachments. */
  attachments: MessageAttachment[];
}

/** An attachment to store with a new email: its metadata and its bytes. */
export interface NewAttachment {
  id: string;
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface Suppression {
  address: string;
  reason: string;
  createdAt: string;
}

/** What to list: one mailbox, its filters already validated and normalized by the domain. */
export interface EmailFilter {
  mailbox: string;
  folder?: Folder;
  /** An FTS5 MATCH expression built by the domain from `q` (D-13). */
  match?: string;
  /** Lower-cased substrings (D-14). */
  fromContains?: string;
  subjectContains?: string;
  read?: boolean;
  starred?: boolean;
  /** Inclusive lower and exclusive upper bound on receivedAt (D-18), ISO 8601 UTC. */
  receivedFrom?: string;
  receivedBefore?: string;
}

/** Keyset position: the last item of the previous page (D-16, D-17). */
export interface ListPosition {
  receivedAt: string;
  id: string;
}
