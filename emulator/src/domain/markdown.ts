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

/** A cell as html-to-text's builder hands a table printer. */
interface TablePrinterCell {
  colspan: number;
  rowspan: number;
  text: string;
}

/** HTML's own cap on `colspan` (browsers clamp larger values to it). */
const MAX_COLSPAN = 1000;

/**
 * html-to-text's `dataTable` layout, in time linear in the table's cells. The library's
 * printer transposes a square of max(rows, columns) cells, so a Markdown table of 100,000 rows
 * cost 10^10 steps (191 s for 1 MB). Same lines as the library's for every table (tested):
 * the layout is filled row by row, then read column by column without transposing it; a
 * `rowspan` past the last row stops there and `colspan` is capped as browsers cap it, so no
 * attribute value can make the layout larger than the table.
 */
export function tableToText(rows: TablePrinterCell[][], rowSpacing = 0, colSpacing = 3): string {
  const layout: (TablePrinterCell | undefined)[][] = rows.map(() => []);
  const lines = new Map<TablePrinterCell, string[]>();
  const rowOffsets: number[] = [0];
  let columns = 0;
  /** Per column, the last row it has a cell in (a later cell's span may end sooner). */
  const lastInColumn: number[] = [];
  /** Cells whose rowspan runs past the last row: the row they would end in, their last column. */
  const overflows: { end: number; lastColumn: number }[] = [];
  rows.forEach((cells, j) => {
    const layoutRow = layout[j] as (TablePrinterCell | undefined)[];
    let x = 0;
    for (const cell of cells) {
      while (layoutRow[x] !== undefined) x += 1;
      const rowspan = Math.min(Math.max(cell.rowspan, 1), rows.length - j);
      const colspan = Math.min(Math.max(cell.colspan, 1), MAX_COLSPAN);
      const spanned = { ...cell, rowspan, colspan };
      if (cell.rowspan > rowspan)
        overflows.push({ end: j + cell.rowspan, lastColumn: x + colspan - 1 });
      for (let c = 0; c < colspan; c++)
        lastInColumn[x + c] = Math.max(lastInColumn[x + c] ?? -1, j + rowspan - 1);
      for (let r = 0; r < rowspan; r++)
        for (let c = 0; c < colspan; c++) (layout[j + r] as typeof layoutRow)[x + c] = spanned;
      x += colspan;
      const cellLines = cell.text.split('\n');
      lines.set(spanned, cellLines);
      updateOffset(rowOffsets, j, rowspan, cellLines.length + rowSpacing);
    }
    columns = Math.max(columns, layoutRow.length);
  });
  const output: string[] = [];
  const colOffsets: number[] = [0];
  const rendered = new Set<TablePrinterCell>();
  for (let x = 0; x < columns; x++) {
    // How far the library reads a column: its transposition leaves column x as long as the
    // furthest of its own cells and of row x's cells (rows past the table included).
    let rowX = x < rows.length ? (layout[x] as unknown[]).length : 0;
    if (x >= rows.length)
      for (const o of overflows) if (o.end > x) rowX = Math.max(rowX, o.lastColumn + 1);
    const height = Math.min(rows.length, Math.max((lastInColumn[x] ?? -1) + 1, rowX));
    for (let y = 0; y < height;) {
      const cell = (layout[y] as (TablePrinterCell | undefined)[])[x];
      if (cell === undefined) {
        const at = rowOffsets[y] as number;
        output[at] = output[at] ?? '';
        y += 1;
        continue;
      }
      if (!rendered.has(cell)) {
        let width = 0;
        (lines.get(cell) as string[]).forEach((line, k) => {
          const at = (rowOffsets[y] as number) + k;
          output[at] = (output[at] ?? '').padEnd(colOffsets[x] as number) + line;
          width = Math.max(width, line.length);
        });
        updateOffset(colOffsets, x, cell.colspan, width + colSpacing);
        rendered.add(cell);
      }
      y += cell.rowspan;
    }
  }
  return output.join('\n');
}

/** An offset, filling unknown ones below it as html-to-text does: one more than the one before. */
function offsetAt(offsets: number[], index: number): number {
  if (offsets[index] === undefined) {
    let k = index;
    while (offsets[k] === undefined) k -= 1;
    for (k += 1; k <= index; k++) offsets[k] = (offsets[k - 1] as number) + 1;
  }
  return offsets[index] as number;
}

function updateOffset(offsets: number[], base: number, span: number, value: number): void {
  offsets[base + span] = Math.max(offsetAt(offsets, base + span), offsetAt(offsets, base) + value);
}

/** The `dataTable` formatter of html-to-text with the linear printer above. */
export const linearDataTable: FormatCallback = (elem, walk, builder, options) => {
  builder.openTable();
  const cell = (node: typeof elem, header: boolean) => {
    const attribs = (node.attribs ?? {}) as Record<string, string>;
    if (header && options.uppercaseHeaderCells !== false)
      builder.pushWordTransform((word) => word.toUpperCase());
    builder.openTableCell({ maxColumnWidth: options.maxColumnWidth });
    walk(node.children ?? [], builder);
    builder.closeTableCell({
      colspan: +(attribs.colspan ?? 1) || 1,
      rowspan: +(attribs.rowspan ?? 1) || 1,
    });
    if (header && options.uppercaseHeaderCells !== false) builder.popWordTransform();
  };
  const walkTable = (node: typeof elem): void => {
    if (node.type !== 'tag') return;
    if (['thead', 'tbody', 'tfoot', 'center'].includes(node.name ?? '')) {
      (node.children ?? []).forEach(walkTable);
    } else if (node.name === 'tr') {
      builder.openTableRow();
      for (const child of node.children ?? []) {
        if (child.type === 'tag' && (child.name === 'th' || child.name === 'td'))
          cell(child, child.name === 'th');
      }
      builder.closeTableRow();
    }
  };
  (elem.children ?? []).forEach(walkTable);
  builder.closeTable({
    tableToString: (rows) => tableToText(rows, options.rowSpacing ?? 0, options.colSpacing ?? 3),
    leadingLineBreaks: options.leadingLineBreaks,
    trailingLineBreaks: options.trailingLineBreaks,
  });
};

const heading = (h: string) => ({ selector: h, options: { uppercase: false } });
// wordwrap false: hard-wrapping at 78 would rewrite the author's paragraphs and break long URLs;
// line length is a transport concern, handled when the MIME layer encodes the part
// (quoted-printable keeps every line under 78 octets whatever the text).
const toText = compile({
  wordwrap: false,
  formatters: { imageAlt, numberedList, linearDataTable },
  selectors: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map(heading),
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['[', ']'] } },
    { selector: 'img', format: 'imageAlt' },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'ol', format: 'numberedList' },
    { selector: 'table', format: 'linearDataTable', options: { uppercaseHeaderCells: false } },
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
