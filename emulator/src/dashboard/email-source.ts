// How the dashboard shows a message's header block. An email's source itself comes from the
// email service (services/email-service.ts), which reads it back from the store.

/** The header block of a message, folded lines joined, as name/value pairs in order. */
export function headersOf(raw: Buffer): [string, string][] {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text : text.slice(0, end);
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = headers.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) last[1] += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
    }
  }
  return headers;
}
