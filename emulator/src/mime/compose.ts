import { randomBytes } from 'node:crypto';
import type MailComposerType from 'nodemailer/lib/mail-composer/index.js';
import type { Address } from '../domain/types.ts';

/** nodemailer loads on the first message composed, so start-up does not wait for it. */
let composerClass: Promise<typeof MailComposerType> | undefined;
const loadComposer = () =>
  (composerClass ??= import('nodemailer/lib/mail-composer/index.js').then((m) => m.default));

/** A message as it is sent: headers, both parts, attachments. Bcc is never written (§4.3). */
export interface OutgoingMessage {
  from: Address;
  to: Address[];
  cc: Address[];
  subject: string;
  text: string | null;
  html: string | null;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  date: Date;
  attachments: { name: string; contentType: string; bytes: Uint8Array }[];
}

/**
 * Each message's multipart boundaries share a base unique to it: random per process, then
 * counted. Nodemailer would otherwise draw 8 bytes with a `randomBytes` call (a system call)
 * per MIME node, a few percent of a send; a boundary needs to be unique, not secret.
 */
const BOUNDARY_PREFIX = randomBytes(6).toString('hex');
let boundaries = 0;

const asMailAddress = (a: Address) =>
  a.name === null ? a.address : { name: a.name, address: a.address };

/**
 * Builds the RFC 822 message with nodemailer's MailComposer: multipart/alternative when there
 * are both parts, multipart/mixed with attachments, threading headers, Base64 where needed.
 * Its byte length is what the 5 MiB limit of §8 is measured on (D-42).
 */
export async function composeMime(message: OutgoingMessage): Promise<Buffer> {
  const MailComposer = await loadComposer();
  const composer = new MailComposer({
    // Not in @types/nodemailer's Mail.Options; MailComposer hands it to every MIME node.
    ...{ baseBoundary: `${BOUNDARY_PREFIX}${(boundaries++).toString(16)}` },
    from: asMailAddress(message.from),
    to: message.to.map(asMailAddress),
    cc: message.cc.map(asMailAddress),
    subject: message.subject,
    ...(message.text === null ? {} : { text: message.text }),
    ...(message.html === null ? {} : { html: message.html }),
    messageId: message.messageId,
    ...(message.inReplyTo === null ? {} : { inReplyTo: message.inReplyTo }),
    ...(message.references.length === 0 ? {} : { references: message.references }),
    date: message.date,
    attachments: message.attachments.map((a) => ({
      filename: a.name,
      content: Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength),
      contentType: a.contentType,
    })),
  });
  return composer.compile().build();
}
