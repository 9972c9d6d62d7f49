import { compile } from 'html-to-text';

/**
 * Elements nested deeper than this are left out of the text. Hostile mail nests hundreds of
 * thousands of elements; unbounded, the conversion of one such message took 45 s.
 */
const MAX_DEPTH = 64;

const toText = compile({
  limits: {
    maxDepth: MAX_DEPTH,
    // Above the platform's request limit (D-27), so a received message is never cut short.
    maxInputLength: 64 * 1024 * 1024,
  },
});

/**
 * The plain text of a received message that has only an HTML part (§2.3 "content"), in time
 * linear in its size whatever its nesting.
 */
export function textOfHtml(html: string): string {
  return toText(html);
}
