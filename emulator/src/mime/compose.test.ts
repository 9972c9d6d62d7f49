import { describe, expect, it } from 'vitest';
import { composeMime, type OutgoingMessage } from './compose.ts';

const message: OutgoingMessage = {
  from: { address: 'a@acme.test', name: 'A' },
  to: [{ address: 'b@example.test', name: null }],
  cc: [],
  subject: 'Hello',
  text: 'text part',
  html: '<p>html part</p>',
  messageId: '<1@acme.test>',
  inReplyTo: null,
  references: [],
  date: new Date('2026-11-24T12:00:00Z'),
  attachments: [{ name: 'a.txt', contentType: 'text/plain', bytes: new Uint8Array([65]) }],
};

const boundariesOf = (raw: Buffer) =>
  [...raw.toString('utf8').matchAll(/boundary="([^"]+)"/g)].map((m) => m[1]);

describe('composeMime', () => {
  it('gives every multipart of every message a boundary of its own', async () => {
    const first = boundariesOf(await composeMime(message));
    const second = boundariesOf(await composeMime(message));
    expect(first).toHaveLength(2); // mixed, and alternative inside it
    expect(new Set([...first, ...second]).size).toBe(4);
  });
});
