/**
 * The expensive, pure part of sending (§4.3): filling the body's variables (§2.6), rendering
 * Markdown to sanitized HTML and its text part, composing the MIME message and judging it
 * against the 5 MiB of §8 (D-42). Runs on the main thread for small bodies and in a worker
 * thread for large ones (render-pool.ts), with the same result either way.
 *
 * The limit is judged as early as it can be judged exactly: every MIME transfer encoding
 * (7bit, quoted-printable, Base64) writes at least one byte per byte of content, so the UTF-8
 * bytes of the text and HTML parts plus the raw bytes of the attachments are a lower bound of
 * the encoded message. A body whose parts already exceed the limit is refused before the text
 * part is derived and before anything is composed; only what could fit is built and measured.
 */
import escapeHtml from 'escape-html';
import { renderTemplate, renderedLength, type Variables } from '../domain/templates.ts';
import type * as Markdown from '../domain/markdown.ts';
import { composeMime, type OutgoingMessage } from './compose.ts';

/**
 * A large request string kept as its UTF-8 bytes, so it moves to a render thread and back
 * (render-pool.ts) instead of being cloned (a 24 MB string: about 400 ms of the main thread; a
 * copy of 24 MB of bytes: 200 ms). Decoded only where it is rendered. The box is what stays:
 * the pool puts the bytes back in it when the render thread returns them.
 */
export interface LargeBytes {
  bytes: Uint8Array;
}
export type Source = string | LargeBytes;

/** A template and the values to fill it with (this recipient's `email`, `unsubscribe_url`). */
export interface Templated {
  template: Source;
  values: Variables;
}

/** One message to render: what the send decided, with the body still to be made. */
export interface BodyJob {
  /** A `markdown` body: supplies both parts (§4.3). */
  markdown: Templated | null;
  /** A `text` body (a template), or a forwarded original's text part (as it is). */
  text: Templated | string | null;
  /** An `html` body, sent as-is (§2.6), or a forwarded original's HTML part. */
  html: Source | null;
  /** D-8: the preheader, filled in here; hidden at the start of the HTML part. */
  preheader: Templated | null;
  /** Headers and attachments of the message, as composeMime takes them. */
  message: Omit<OutgoingMessage, 'text' | 'html'>;
  /** D-42: the most bytes the encoded message may have. */
  maxBytes: number;
}

export type BodyResult =
  | {
      ok: true;
      /** The preheader filled in (kept on the email whether or not there is an HTML part). */
      preheader: string | null;
      text: string | null;
      html: string | null;
      /** What the snippet is made from: the text part, else the HTML part's text. */
      plain: string | null;
      raw: Uint8Array;
    }
  | {
      ok: false;
      /** The encoded size, or (`atLeast`) a lower bound of it that already exceeds the limit. */
      bytes: number;
      atLeast: boolean;
      /** Whether the body's own parts exceed the limit without the attachments. */
      bodyAlone: boolean;
      /** The preheader alone, filled in, is longer than the limit (it is refused unmade). */
      preheaderAlone?: true;
    };

/** The steps that cost, injectable so a test can see which of them ran. */
export interface RenderStages {
  markdownToHtml(markdown: string): string;
  htmlToPlainText(html: string): string;
  composeMime(message: OutgoingMessage): Promise<Uint8Array>;
}

/** Longest string V8 can make (2^29 - 24 UTF-16 code units); a longer rendering cannot exist. */
const MAX_STRING_LENGTH = 2 ** 29 - 24;

/**
 * markdown-it, sanitize-html, html-to-text and nodemailer load with the first message rendered
 * (on whichever thread renders it), so start-up does not wait for them.
 */
let defaultStages: Promise<RenderStages> | undefined;
export function loadRenderStages(): Promise<RenderStages> {
  return (defaultStages ??= (import('../domain/markdown.ts') as Promise<typeof Markdown>).then(
    (markdown) => ({
      markdownToHtml: markdown.markdownToHtml,
      htmlToPlainText: markdown.htmlToPlainText,
      composeMime, // loads nodemailer itself, with the first message composed
    }),
  ));
}

export async function renderBody(job: BodyJob, stages?: RenderStages): Promise<BodyResult> {
  const steps = stages ?? (await loadRenderStages());
  const attachmentBytes = job.message.attachments.reduce((sum, a) => sum + a.bytes.length, 0);
  const tooLarge = (bodyBytes: number, atLeast: boolean, total = bodyBytes + attachmentBytes) =>
    ({ ok: false, bytes: total, atLeast, bodyAlone: bodyBytes > job.maxBytes }) as const;

  // Each template's length once filled, known before it is made: every UTF-16 code unit is at
  // least one UTF-8 byte, so a text body longer than the limit is refused without making it.
  // The preheader is kept on the email even without an HTML part: one longer than the whole
  // message may be is refused before it is made.
  const preheaderLength = job.preheader === null ? 0 : lengthOf(job.preheader);
  if (preheaderLength > job.maxBytes)
    return { ...tooLarge(preheaderLength, true), preheaderAlone: true };
  const textLength = job.text !== null && typeof job.text !== 'string' ? lengthOf(job.text) : 0;
  if (textLength + attachmentBytes > job.maxBytes) return tooLarge(textLength, true);
  const markdownLength = job.markdown === null ? 0 : lengthOf(job.markdown);
  if (markdownLength > MAX_STRING_LENGTH) return tooLarge(markdownLength, true);

  const preheader = job.preheader === null ? null : fill(job.preheader);
  let text = job.text === null || typeof job.text === 'string' ? job.text : fill(job.text);
  const bodyHtml =
    job.markdown === null ? decoded(job.html) : steps.markdownToHtml(fill(job.markdown));
  const html =
    bodyHtml !== null && preheader !== null ? withPreheader(bodyHtml, preheader) : bodyHtml;
  let bodyBytes = byteLength(text) + byteLength(html);
  if (bodyBytes + attachmentBytes > job.maxBytes) return tooLarge(bodyBytes, true);
  if (job.markdown !== null) {
    // The text part says what the sanitized HTML says, never what it lost (nor the preheader).
    text = steps.htmlToPlainText(bodyHtml ?? '');
    bodyBytes += byteLength(text);
    if (bodyBytes + attachmentBytes > job.maxBytes) return tooLarge(bodyBytes, true);
  }
  const raw = await steps.composeMime({ ...job.message, text, html });
  if (raw.length > job.maxBytes) return tooLarge(bodyBytes, false, raw.length);
  const plain = text ?? (html === null ? null : steps.htmlToPlainText(html));
  return { ok: true, preheader, text, html, plain, raw };
}

/** The boxed bytes of a job, in a fixed order (the worker returns them in the same). */
export function boxesOf(job: BodyJob): LargeBytes[] {
  const box = (source: Source | undefined) =>
    source === undefined || typeof source === 'string' ? [] : [source];
  const templateOf = (part: Templated | string | null) =>
    part === null || typeof part === 'string' ? undefined : part.template;
  return [
    ...box(templateOf(job.markdown)),
    ...box(templateOf(job.text)),
    ...box(job.html ?? undefined),
    ...box(templateOf(job.preheader)),
  ];
}

/** A source as a string: bytes are decoded here, on the thread that renders them. */
export function decoded<T extends Source | null>(source: T): string | Exclude<T, Source> {
  if (source === null || typeof source === 'string') return source as string | Exclude<T, Source>;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(source.bytes); // keeps a U+FEFF
}

function fill(templated: Templated): string {
  return renderTemplate(decoded(templated.template), templated.values);
}

function lengthOf(templated: Templated): number {
  return renderedLength(decoded(templated.template), templated.values);
}

function byteLength(part: string | null): number {
  return part === null ? 0 : Buffer.byteLength(part, 'utf8');
}

/** D-8: the preheader as a hidden first element of the HTML part. */
function withPreheader(html: string, preheader: string): string {
  return `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all" aria-hidden="true">${escapeHtml(preheader)}</div>${html}`;
}
