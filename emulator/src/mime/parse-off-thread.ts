import { ApiError, type ErrorCode } from '../errors.ts';
import { parseMessage, type MessageContent, type ParsedMessage } from './parse-message.ts';

/**
 * Raw messages larger than this are parsed on a render thread (render-pool.ts) when the caller
 * has one: mailparser and its text-to-HTML step take about 1 s of one turn of the event loop
 * for a 4.5 MB message under load, time in which no other request is answered. A smaller one
 * (a usual message is a few kilobytes) parses faster here than a thread's round trip costs.
 */
export const OFF_THREAD_MESSAGE_BYTES = 64 * 1024;

/** A text field as it crosses threads: UTF-8 bytes (moved, not copied), or the string itself. */
type PackedText = Uint8Array | string | null;

/**
 * A parsed message as it crosses back from a render thread: its large strings as UTF-8 bytes
 * and its bytes moved (a string of megabytes costs the receiving thread hundreds of
 * milliseconds to deserialize), or the refusal the message earned.
 */
export type PackedMessage =
  | {
      ok: true;
      content: Omit<MessageContent, 'text' | 'html'>;
      text: PackedText;
      html: PackedText;
      /** The text and HTML as the UTF-8 bytes of their JSON strings (ParsedMessage.json). */
      textJson: Uint8Array | null;
      htmlJson: Uint8Array | null;
      attachments: { name: string; contentType: string; bytes: Uint8Array }[];
      raw: Uint8Array;
    }
  | { ok: false; code: ErrorCode; message: string; field?: string; raw: Uint8Array };

/**
 * On a render thread: parses `raw` (parse-message.ts) and packs the outcome, with the buffers
 * to move. A refusal (ApiError) is an outcome, not a failure of the thread; anything else
 * thrown is.
 */
export async function parsePacked(
  raw: Uint8Array,
): Promise<{ packed: PackedMessage; transfer: ArrayBuffer[] }> {
  let parsed: ParsedMessage;
  try {
    parsed = await parseMessage(raw);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const refused = { ok: false as const, code: error.code, message: error.message, raw };
    return {
      packed: error.field === undefined ? refused : { ...refused, field: error.field },
      transfer: [raw.buffer as ArrayBuffer],
    };
  }
  const { text, html, ...content } = parsed.content;
  const attachments = parsed.attachments.map((a) => ({ ...a, bytes: own(a.bytes) }));
  const packed = {
    ok: true as const,
    content,
    text: packText(text),
    html: packText(html),
    textJson: jsonBytes(text),
    htmlJson: jsonBytes(html),
    attachments,
    raw,
  };
  const moved = [
    packed.text,
    packed.html,
    packed.textJson,
    packed.htmlJson,
    ...attachments.map((a) => a.bytes),
    raw,
  ]
    .filter((p): p is Uint8Array => p instanceof Uint8Array)
    .map((p) => p.buffer as ArrayBuffer);
  return { packed, transfer: [...new Set(moved)] };
}

/** On the calling thread: the parsed message a render thread packed, or its refusal thrown. */
export function unpackParsed(packed: PackedMessage): ParsedMessage {
  if (!packed.ok) throw new ApiError(packed.code, packed.message, packed.field);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a part may begin with U+FEFF
  const text = (part: PackedText) =>
    part === null || typeof part === 'string' ? part : decoder.decode(part);
  return {
    content: { ...packed.content, text: text(packed.text), html: text(packed.html) },
    attachments: packed.attachments.map((a) => ({
      ...a,
      bytes: Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength),
    })),
    raw: packed.raw,
    json: { text: packed.textJson, html: packed.htmlJson },
  };
}

/**
 * A large text as the bytes of its JSON string, made here on the render thread: the detail of
 * the email it becomes (its answer, its webhooks' data) carries it, and serialising and encoding
 * 4.5 MB took the event loop about 50 ms (issue 27 item 1).
 */
function jsonBytes(text: string | null): Uint8Array | null {
  return text === null ? null : new TextEncoder().encode(JSON.stringify(text));
}

/** ES2024's check, on every Node this runs on (20+), not yet in the compiler's library here. */
type WellFormed = string & { isWellFormed(): boolean };

/** UTF-8 bytes, unless the string holds a lone surrogate (which UTF-8 cannot carry as it is). */
function packText(text: string | null): PackedText {
  if (text === null || !(text as WellFormed).isWellFormed()) return text;
  return new TextEncoder().encode(text);
}

/** Bytes that can be moved: a view of a whole buffer of its own (Node's pool cannot move). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : new Uint8Array(bytes);
}
