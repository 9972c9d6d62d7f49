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
import { renderTemplate, renderedLength, type Variables } from '../domain/templates.ts';
import type * as Markdown from '../domain/markdown.ts';
import { composeMime, type OutgoingMessage } from './compose.ts';

/** A template and the values to fill it with (this recipient's `email`, `unsubscribe_url`). */
export interface Templated {
  template: string;
  values: Variables;
}

/** One message to render: what the send decided, with the body still to be made. */
export interface BodyJob {
  /** A `markdown` body: supplies both parts (§4.3). */
  markdown: Templated | null;
  /** A `text` body (a template), or a forwarded original's text part (as it is). */
  text: Templated | string | null;
  /** An `html` body, sent as-is (§2.6), or a forwarded original's HTML part. */
  html: string | null;
  /** D-8: hidden at the start of the HTML part, variables already filled in. */
  hiddenPreheader: string | null;
  /** Headers and attachments of the message, as composeMime takes them. */
  message: Omit<OutgoingMessage, 'text' | 'html'>;
  /** D-42: the most bytes the encoded message may have. */
  maxBytes: number;
}

export type BodyResult =
  | {
      ok: true;
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
  const textLength = job.text !== null && typeof job.text !== 'string' ? lengthOf(job.text) : 0;
  if (textLength + attachmentBytes > job.maxBytes) return tooLarge(textLength, true);
  const markdownLength = job.markdown === null ? 0 : lengthOf(job.markdown);
  if (markdownLength > MAX_STRING_LENGTH) return tooLarge(markdownLength, true);

  let text = job.text === null || typeof job.text === 'string' ? job.text : fill(job.text);
  const bodyHtml = job.markdown === null ? job.html : steps.markdownToHtml(fill(job.markdown));
  const html =
    bodyHtml !== null && job.hiddenPreheader !== null
      ? withPreheader(bodyHtml, job.hiddenPreheader)
      : bodyHtml;
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
  return { ok: true, text, html, plain, raw };
}

function fill(templated: Templated): string {
  return renderTemplate(templated.template, templated.values);
}

function lengthOf(templated: Templated): number {
  return renderedLength(templated.template, templated.values);
}

function byteLength(part: string | null): number {
  return part === null ? 0 : Buffer.byteLength(part, 'utf8');
}

/** D-8: the preheader as a hidden first element of the HTML part. */
function withPreheader(html: string, preheader: string): string {
  const escaped = preheader
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
  return `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all" aria-hidden="true">${escaped}</div>${html}`;
}
