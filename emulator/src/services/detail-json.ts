/**
 * An email's detail as JSON bytes (D-4: what the API answers, what email.received carries in
 * `data`), made in steps for a large body (issue 27 item 1): its text and HTML, megabytes, are
 * encoded as JSON strings first, in a turn of the event loop of their own; the detail of the
 * email once stored is then the small rest serialised around those bytes. A 4.5 MB text
 * serialised and encoded with the rest held the turn that stored the email about 40 ms more.
 */
import { randomUUID } from 'node:crypto';
import { emailDetail } from '../domain/email-view.ts';
import type { Email } from '../domain/types.ts';

/** A body's text and HTML as the bytes of their JSON strings (null when absent). */
export interface EncodedBodies {
  text: string | null;
  html: string | null;
  textJson: Uint8Array | null;
  htmlJson: Uint8Array | null;
}

export function encodeBodies(text: string | null, html: string | null): EncodedBodies {
  const json = (value: string | null) =>
    value === null ? null : Buffer.from(JSON.stringify(value), 'utf8');
  return { text, html, textJson: json(text), htmlJson: json(html) };
}

/** Stands for a body in the serialised rest; random, so no other value can contain it. */
const MARK = `\u0000${randomUUID()}`;
const TEXT = `${MARK}text`;
const HTML = `${MARK}html`;

/**
 * The bytes of `JSON.stringify(emailDetail(email))`, byte for byte, when `email`'s text and HTML
 * are the ones `bodies` encoded (else they are serialised here, as a fallback).
 */
export function detailJson(email: Email, bodies: EncodedBodies): Buffer<ArrayBuffer> {
  if (email.text !== bodies.text || email.html !== bodies.html)
    return Buffer.from(JSON.stringify(emailDetail(email)), 'utf8');
  const shape = JSON.stringify(
    emailDetail({
      ...email,
      text: email.text === null ? null : TEXT,
      html: email.html === null ? null : HTML,
    }),
  );
  const places = (
    [
      [JSON.stringify(TEXT), bodies.textJson],
      [JSON.stringify(HTML), bodies.htmlJson],
    ] as const
  )
    .map(([mark, bytes]) => ({ at: shape.indexOf(mark), length: mark.length, bytes }))
    .filter((p): p is { at: number; length: number; bytes: Uint8Array } => p.bytes !== null)
    .sort((a, b) => a.at - b.at);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const { at, length, bytes } of places) {
    pieces.push(Buffer.from(shape.slice(from, at), 'utf8'), bytes);
    from = at + length;
  }
  pieces.push(Buffer.from(shape.slice(from), 'utf8'));
  return Buffer.concat(pieces);
}
