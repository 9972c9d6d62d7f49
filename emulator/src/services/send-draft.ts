/**
 * A message as SendService holds it between the request and the store (§4.3, §4.7, §4.8): the
 * draft, every template still a template, and each recipient's rendering of it.
 */
import type { components } from '../../../spec/generated/openapi.d.ts';
import type { Variables } from '../domain/templates.ts';
import type { GivenBody } from '../domain/message-body.ts';
import type { Address, Mailbox } from '../domain/types.ts';
import type { LargeField, LargeFieldName } from './checked-request.ts';
import type { FaultableOperation } from './faults.ts';

/** Bytes to attach, found by upload id for the key's owner (the attachments seam, §2.4). */
export interface AttachmentSource {
  resolve(
    ownerId: string,
    ids: string[],
  ): { name: string; contentType: string; bytes: Uint8Array }[];
}

/** A message before rendering: every template still a template. */
export interface Draft {
  operation: FaultableOperation;
  mailbox: Mailbox;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  /** Where each recipient came from, to name the field of a suppressed one. */
  recipientFields: Map<string, string>;
  subject: { template: string } | { literal: string };
  preheader: string | undefined;
  body: GivenBody | { kind: 'original'; text: string | null; html: string | null };
  variables: Variables;
  inReplyTo: string | null;
  references: string[];
  attachments: { name: string; contentType: string; bytes: Uint8Array }[];
  /** The request's large strings as bytes (their fields above are empty): never decoded here. */
  large: Partial<Record<LargeFieldName, LargeField>>;
}

/** One rendering of a draft: for every recipient, or for one when a template names them. */
export interface Rendered {
  subject: string;
  preheader: string | null;
  text: string | null;
  html: string | null;
  /** What the snippet is made from: the text part, else the HTML part's text. */
  plain: string | null;
  raw: Buffer;
}

/** A request body as spec/openapi.yaml defines it (types generated from the contract). */
export type RequestBody<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The request field each recipient came from, to name it in an error (`cc[2]`). */
export function fieldsOf(
  to: Address[],
  cc: Address[],
  bcc: Address[],
  derivedCc = 0,
): Map<string, string> {
  const fields = new Map<string, string>();
  const add = (address: string, field: string) => {
    if (!fields.has(address)) fields.set(address, field);
  };
  to.forEach((a) => add(a.address, 'to'));
  // Cc derived from the original (reply-all) has no request field; name the list.
  cc.forEach((a, i) => add(a.address, i < derivedCc ? 'cc' : `cc[${i - derivedCc}]`));
  bcc.forEach((a, i) => add(a.address, `bcc[${i}]`));
  return fields;
}

export function uniqueAddresses(addresses: Address[]): Address[] {
  const seen = new Set<string>();
  return addresses.filter((a) => !seen.has(a.address) && seen.add(a.address));
}
