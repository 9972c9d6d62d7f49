/**
 * Text as a log can hold it (issue 27 item 11). A failure quotes what the target answered, and
 * an answer may be a file's bytes: a NUL or another control character in the console output made
 * `grep` call the whole CI log binary, and an escape sequence could rewrite the terminal. Each
 * such character is shown as an escape (`\x00`, `\r`, `\x1b`, `\u0085`); tabs and line breaks
 * stay. A body that is binary as a whole is summarised by its size instead of being quoted.
 */

/** C0 controls but tab and line feed, DEL, and the C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function escapeOf(char: string): string {
  if (char === '\r') return '\\r';
  const code = char.charCodeAt(0);
  return code < 0x80
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character but tab and line feed written as an escape. */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeOf);
}

/**
 * Whether decoded text is really binary: it holds a NUL, or more than one in ten of its first
 * 4,096 characters are controls or U+FFFD (bytes that were not UTF-8).
 */
export function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true;
  const head = text.slice(0, 4096);
  if (head.length === 0) return false;
  const odd = head.match(/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/g)?.length ?? 0;
  return odd * 10 > head.length;
}

/**
 * A response body for a failure message: `<N bytes binary>` for binary content, else the text,
 * cut to `maxChars` (saying how long it was), with its control characters escaped.
 */
export function bodyForLog(text: string, byteLength: number, maxChars: number): string {
  if (looksBinary(text)) return `<${byteLength} bytes binary>`;
  const shown =
    text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length} chars)` : text;
  return printable(shown);
}
