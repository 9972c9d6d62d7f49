/**
 * §4.3 POST /emails/send, field `markdown`: "Rendered to sanitized email HTML; also supplies the
 * plain-text part". Markdown → HTML with markdown-it, HTML → safe email HTML with sanitize-html,
 * safe HTML → text part with html-to-text. Pure: no I/O, no clock, same input → same output.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { compile, type FormatCallback } from 'html-to-text';

// CommonMark plus GFM tables and strikethrough (both in markdown-it's default preset). Raw HTML is
// parsed, not escaped: authors may write <u> or <sup>, and everything passes the sanitizer below.
const md = new MarkdownIt('default', { html: true, linkify: true, breaks: false });

/** `data:` is let through on <img> only for these raster types, base64-encoded (see SANITIZE). */
const RASTER_DATA_URI = /^data:image\/(?:png|gif|jpeg|webp);base64,[a-z0-9+/=]+$/i;
/** What browsers ignore inside a URL (C0 controls, space): strip before looking at a scheme. */
const URL_IGNORED = /[\u0000-\u0020\u007f-\u009f]+/g;
const ALIGNS = new Set(['left', 'center', 'right', 'justify']);
const TEXT_ALIGN = /(?:^|;)\s*text-align\s*:\s*(left|center|right)\s*(?:;|$)/i;

/** GFM tables align with `style="text-align:…"`; styles are dropped, so keep it as `align`
 * (only a known value: anything else is dropped, not left as an empty attribute). */
const cellAlign: sanitizeHtml.Transformer = (tagName, attribs) => {
  const align = (attribs.align ?? TEXT_ALIGN.exec(attribs.style ?? '')?.[1])?.toLowerCase();
  const { style: _style, align: _align, ...kept } = attribs;
  return { tagName, attribs: align && ALIGNS.has(align) ? { ...kept, align } : kept };
};

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code'],
    ...['strong', 'b', 'em', 'i', 's', 'del', 'u', 'sup', 'sub', 'span', 'div'],
    ...['ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  ],
  // No `style`, `class`, `id` or `on*` anywhere: email clients strip most CSS anyway, and a style
  // attribute is a vector (url(javascript:…), expression()). `target`/`rel` are not allowed or
  // added on links: the reading client decides how links open (webmail rewrites them and adds
  // its own rel/target), and the body is not a page that could be reached through window.opener.
  allowedAttributes: {
    a: ['href', 'title', 'name'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'], // `3. item` in Markdown renders as <ol start="3">
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  // cid: is how a message points at its own inline attachments. data: is harmless inside <img>
  // (an image context runs no script) but is narrowed to raster types in transformTags below:
  // SVG is a script-capable document should a client ever open the image on its own.
  allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
  // `//host/x` has no meaning in a message that has no base URL of its own.
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Dropped tags normally keep their text; for these the text is code or markup, not prose.
  nonTextTags: [
    ...['script', 'style', 'textarea', 'option', 'xmp', 'noscript', 'noembed', 'noframes'],
    ...['iframe', 'template', 'title', 'svg', 'math', 'object', 'select', 'head'],
  ],
  transformTags: {
    th: cellAlign,
    td: cellAlign,
    img: (tagName, attribs) => {
      const src = (attribs.src ?? '').replace(URL_IGNORED, '');
      if (/^data:/i.test(src) && !RASTER_DATA_URI.test(src)) {
        const { src: _src, ...rest } = attribs;
        return { tagName, attribs: rest };
      }
      return { tagName, attribs };
    },
  },
};

/** The text part shows an image as its alt text: a URL (let alone a data: blob) is noise there. */
const imageAlt: FormatCallback = (elem, _walk, builder) => {
  const alt = (elem.attribs as Record<string, string> | undefined)?.alt;
  if (alt) builder.addInline(alt);
};

/** `1. item`, flush left like the `- item` of unordered lists (the built-in pads with a space). */
const numberedList: FormatCallback = (elem, walk, builder, options) => {
  const nested = elem.parent?.name === 'li';
  const items = (elem.children ?? []).filter((c) => c.name === 'li');
  const start = Number.parseInt((elem.attribs as Record<string, string>)?.start ?? '1', 10);
  let n = Number.isNaN(start) ? 1 : start;
  const prefixes = items.map(() => `${n++}. `);
  if (!items.length) return;
  const breaks = nested ? 1 : (options.leadingLineBreaks ?? 2);
  const maxPrefixLength = Math.max(...prefixes.map((p) => p.length));
  builder.openList({ interRowLineBreaks: 1, leadingLineBreaks: breaks, maxPrefixLength });
  items.forEach((item, i) => {
    builder.openListItem({ prefix: prefixes[i] ?? '' });
    walk([item], builder);
    builder.closeListItem();
  });
  builder.closeList({ trailingLineBreaks: nested ? 1 : (options.trailingLineBreaks ?? 2) });
};

const heading = (h: string) => ({ selector: h, options: { uppercase: false } });
// wordwrap false: hard-wrapping at 78 would rewrite the author's paragraphs and break long URLs;
// line length is a transport concern, handled when the MIME layer encodes the part
// (quoted-printable keeps every line under 78 octets whatever the text).
const toText = compile({
  wordwrap: false,
  formatters: { imageAlt, numberedList },
  selectors: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map(heading),
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['[', ']'] } },
    { selector: 'img', format: 'imageAlt' },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'ol', format: 'numberedList' },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ...['head', 'script', 'style', 'noscript', 'template'].map((s) => ({
      selector: s,
      format: 'skip',
    })),
  ],
});

/**
 * The sanitizer the Markdown path uses, exported for any other place that must make
 * untrusted HTML safe to show as an email body (§4.3: Markdown is "rendered to sanitized email
 * HTML"; raw `html` bodies are "sent as-is" and do not go through here).
 */
export function sanitizeEmailHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE);
}

/**
 * The plain-text alternative of an HTML body: links as `text [url]`, images as their alt text,
 * headings as written, lists as `- ` / `1. `. Also used to derive a text part from `html` bodies.
 */
export function htmlToPlainText(html: string): string {
  return toText(html);
}

/**
 * §4.3: the `markdown` field yields both MIME parts. The text part is derived from the sanitized
 * HTML, so the two parts always say the same thing and the text never holds what the HTML lost.
 */
export function renderMarkdown(markdown: string): { html: string; text: string } {
  const html = markdownToHtml(markdown);
  return { html, text: htmlToPlainText(html) };
}

/**
 * The HTML part of a `markdown` body alone, sanitized: what `renderMarkdown` derives the text
 * part from. Apart so a sender can judge the size of the HTML before deriving the text.
 */
export function markdownToHtml(markdown: string): string {
  return sanitizeEmailHtml(md.render(markdown));
}
