import { ApiError, quoteForMessage } from '../errors.ts';
import { parseAddress } from '../domain/addresses.ts';
import { parseTimestampParam } from '../domain/query-params.ts';
import type { Address, Folder, NewAttachment } from '../domain/types.ts';
import type { MessageContent } from '../mime/parse-message.ts';
import { requireText } from './directory-service.ts';

/** An inbound email described field by field (the control plane's JSON form). */
export interface InboundEmail {
  mailbox: string;
  from: string;
  to?: string[];
  cc?: string[];
  replyTo?: string[];
  subject?: string;
  text?: string | null;
  html?: string | null;
  receivedAt?: string;
  sentAt?: string | null;
  messageId?: string;
  inReplyTo?: string | null;
  references?: string[];
  folder?: Folder;
  read?: boolean;
  starred?: boolean;
  attachments?: { name: string; contentType?: string; contentBase64: string }[];
}

/** What the JSON form's fields say, checked; the attachments still without IDs. */
export interface JsonMessage {
  content: MessageContent;
  attachments: Omit<NewAttachment, 'id'>[];
}

/**
 * The JSON form's message fields, each checked in the order a refusal names the first bad one:
 * text, html, attachments, references, from, to, cc, replyTo, subject, sentAt (where the mail
 * lands is checked when it is delivered). Refusals are 400 with the field's path.
 */
export function jsonMessage(input: InboundEmail): JsonMessage {
  const addresses = (list: unknown, field: string): Address[] => {
    if (list === undefined) return [];
    if (!Array.isArray(list))
      throw new ApiError('invalid_field', `${field} must be an array of addresses.`, field);
    return list.map((entry, i) => requireAddress(entry, `${field}[${i}]`));
  };
  const text = optionalText(input.text, 'text');
  const html = optionalText(input.html, 'html');
  const attachments = (input.attachments ?? []).map((a, i) => {
    const field = `attachments[${i}]`;
    const base64 = requireText(a?.contentBase64, `${field}.contentBase64`, 64 * 1024 * 1024);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
      throw new ApiError('invalid_field', 'contentBase64 is not base64.', `${field}.contentBase64`);
    return {
      name: requireText(a.name, `${field}.name`, 255),
      contentType:
        a.contentType === undefined
          ? 'application/octet-stream'
          : requireText(a.contentType, `${field}.contentType`, 255),
      bytes: Buffer.from(base64, 'base64'),
    };
  });
  const references = input.references ?? [];
  if (!Array.isArray(references) || !references.every((r) => typeof r === 'string')) {
    throw new ApiError(
      'invalid_field',
      'references must be an array of message ids.',
      'references',
    );
  }
  return {
    content: {
      from: requireAddress(input.from, 'from'),
      to: addresses(input.to, 'to'),
      cc: addresses(input.cc, 'cc'),
      replyTo: addresses(input.replyTo, 'replyTo'),
      subject:
        input.subject === undefined ? '' : requireTextAllowEmpty(input.subject, 'subject', 998),
      text: text ?? null,
      html: html ?? null,
      sentAt: input.sentAt == null ? null : parseTimestampParam('sentAt', input.sentAt),
      messageId: input.messageId,
      inReplyTo: input.inReplyTo ?? null,
      references,
    },
    attachments,
  };
}

function requireAddress(value: unknown, field: string): Address {
  const text = requireText(value, field, 400);
  const address = parseAddress(text);
  if (address === undefined)
    throw new ApiError(
      'invalid_address',
      `${quoteForMessage(text)} is not an email address.`,
      field,
    );
  return address;
}

function optionalText(value: unknown, field: string): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string')
    throw new ApiError('invalid_field', `${field} must be a string.`, field);
  return value;
}

function requireTextAllowEmpty(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string')
    throw new ApiError('invalid_field', `${field} must be a string.`, field);
  if ([...value].length > maxLength)
    throw new ApiError(
      'subject_too_long',
      `${field} is longer than ${maxLength} characters.`,
      field,
    );
  return value;
}
