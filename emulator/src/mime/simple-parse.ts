/**
 * mailparser's own libraries (libmime's header decoding, nodemailer's addressparser, libqp and
 * libbase64 for bodies), loaded with the first raw message as mailparser is.
 */
let modules:
  | Promise<
      [
        typeof import('libmime'),
        typeof import('libqp'),
        typeof import('libbase64'),
        typeof import('nodemailer/lib/addressparser/index.js'),
      ]
    >
  | undefined;
const load = () =>
  (modules ??= Promise.all([
    import('libmime'),
    import('libqp'),
    import('libbase64'),
    import('nodemailer/lib/addressparser/index.js'),
  ]));

/** One entry of nodemailer's addressparser, as mailparser reads it. */
export interface ParsedAddress {
  name: string;
  address?: string;
  group?: ParsedAddress[];
}

/** What the message says, in mailparser's terms, before parse-message.ts turns it into content. */
export interface SimpleMessage {
  /** The address headers, each as nodemailer's addressparser gives it, names decoded. */
  from: ParsedAddress[];
  to: ParsedAddress[];
  cc: ParsedAddress[];
  replyTo: ParsedAddress[];
  subject: string | undefined;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
  /** The raw `Date` line, as mailparser's headerLines give it. */
  dateLine: string | undefined;
  text?: string;
  html?: string;
}

/** A header as mailparser's headerLines give it: its name lower case, its lines as sent. */
interface HeaderLine {
  key: string;
  line: string;
}

/** Headers mailparser keeps one of (its last) or joins, and those that shape the body. */
const AT_MOST_ONCE = new Set([
  'from',
  'sender',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'mime-version',
]);
/** The headers a part of the alternative may have. */
const PART_HEADERS = new Set(['content-type', 'content-transfer-encoding']);
const ENCODINGS = new Set(['', '7bit', '8bit', 'quoted-printable', 'base64']);
const FIELD = /^[\x21-\x39\x3b-\x7e]+:/;

/**
 * The raw messages most clients send, read without mailparser's streams to exactly what it
 * gives (issue 31 item 2: its Transform streams, one set per MIME part, were about 60% of the
 * CPU of an SMTP message). One shape is taken; for anything else this is undefined and
 * parse-message.ts asks mailparser:
 * - ASCII bytes only, less than 1 MiB, ending in a line break, no bare CR or NUL, no
 *   whitespace at the end of a line, nothing in punycode (mailparser shows IDN domains in
 *   Unicode), header lines that are `Name: value` or fold;
 * - one From and at most one of each header mailparser keeps one of or joins;
 * - a single `text/plain` or `text/html` part, or `multipart/alternative` of exactly those two
 *   in that order, with nothing after its end; no parameter but `charset`
 *   (absent, `utf-8` or `us-ascii`) and `boundary`; 7bit, 8bit, quoted-printable or base64; a
 *   part has no header but its Content-Type and Content-Transfer-Encoding; no text is empty;
 *   text beyond ASCII only where the part says UTF-8, and without a byte order mark;
 * - no address whose name is all base64 encoded words without an address, nor an encoded
 *   word in an address (mailparser parses those again).
 * What it reads is read with mailparser's own libraries the way mailparser uses them:
 * libmime's unfolding and decodeWords, nodemailer's addressparser, libqp and libbase64, and
 * Node's UTF-8 decoding (iconv-lite's). simple-parse.test.ts compares the two over generated
 * messages of every shape.
 */
export async function parseSimpleMessage(raw: Uint8Array): Promise<SimpleMessage | undefined> {
  // Below mailparser's 1 MiB limit of a header block, so it refuses none of what is taken.
  if (raw.length === 0 || raw.length >= 1024 * 1024 || raw[raw.length - 1] !== 0x0a)
    return undefined;
  for (let i = 0; i < raw.length; i += 1) if (raw[i]! >= 0x80 || raw[i] === 0) return undefined;
  const source = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  if (/[ \t]\r?\n|\r(?!\n)|xn--/i.test(source)) return undefined;
  const [
    { default: libmime },
    { default: libqp },
    { default: libbase64 },
    { default: addressparser },
  ] = await load();

  const decodeWords = (value: string): string => {
    try {
      return libmime.decodeWords(value);
    } catch {
      return value; // as mailparser: kept as is
    }
  };
  /** libmime.decodeHeader's value: line breaks and the whitespace after them made one space. */
  const valueOf = (headers: HeaderLine[], key: string): string | undefined => {
    const line = headers.find((header) => header.key === key)?.line;
    if (line === undefined) return undefined;
    const match = /^\s*([^:]+):(.*)$/.exec(line.replace(/(?:\r?\n|\r)[ \t]*/g, ' ').trim());
    return (match?.[2] ?? '').trim();
  };
  /** A part's type, charset and encoding, as mailsplit reads them; undefined if not taken. */
  const typeOf = (headers: HeaderLine[]) => {
    const contentType = valueOf(headers, 'content-type');
    const parsed = libmime.parseHeaderValue(contentType ?? 'text/plain');
    const encoding = (valueOf(headers, 'content-transfer-encoding') ?? '').toLowerCase().trim();
    if (!ENCODINGS.has(encoding)) return undefined;
    const charset = parsed.params.charset?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'us-ascii') return undefined;
    return {
      type: (parsed.value || '').toLowerCase().trim(),
      params: parsed.params,
      charset,
      encoding,
    };
  };
  /** A body as mailparser's text: decoded, its line breaks `\n`; undefined if not taken. */
  const textOf = (body: string, part: NonNullable<ReturnType<typeof typeOf>>) => {
    if (Object.keys(part.params).some((name) => name !== 'charset')) return undefined;
    const bytes =
      part.encoding === 'quoted-printable'
        ? libqp.decode(body)
        : part.encoding === 'base64'
          ? libbase64.decode(body.replace(/[^a-zA-Z0-9+/=]/g, ''))
          : Buffer.from(body, 'latin1');
    // iconv-lite drops a leading byte order mark; without UTF-8, only ASCII reads the same
    // whichever charset mailparser picks.
    if (part.charset === 'utf-8') {
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
    } else if (bytes.some((byte) => byte >= 0x80)) return undefined;
    const text = bytes.toString('utf8').replace(/\r?\n/g, '\n');
    return text === '' ? undefined : text;
  };

  const root = split(source);
  if (root === undefined) return undefined;
  const seen = new Set<string>();
  for (const { key } of root.headers) {
    if (!AT_MOST_ONCE.has(key)) continue;
    if (seen.has(key)) return undefined;
    seen.add(key);
  }
  if (!seen.has('from') || seen.has('content-disposition') || seen.has('content-id'))
    return undefined;
  const rootType = typeOf(root.headers);
  if (rootType === undefined) return undefined;
  let text: string | undefined;
  let html: string | undefined;
  if (rootType.type === 'text/plain' || rootType.type === 'text/html') {
    const body = textOf(root.body, rootType);
    if (body === undefined) return undefined;
    if (rootType.type === 'text/html') html = body;
    else text = body;
  } else {
    if (rootType.type !== 'multipart/alternative') return undefined;
    const { boundary, ...others } = rootType.params;
    if (boundary === undefined || Object.keys(others).length > 0) return undefined;
    const parts = alternatives(root.body, boundary);
    if (parts === undefined) return undefined;
    const bodies: string[] = [];
    for (const [index, part] of parts.entries()) {
      if (part.headers.some(({ key }) => !PART_HEADERS.has(key))) return undefined;
      if (new Set(part.headers.map(({ key }) => key)).size !== part.headers.length)
        return undefined;
      const type = typeOf(part.headers);
      if (type?.type !== (index === 0 ? 'text/plain' : 'text/html')) return undefined;
      const body = textOf(part.body, type);
      if (body === undefined) return undefined;
      bodies.push(body);
    }
    [text, html] = bodies;
  }

  const addresses = (key: string): ParsedAddress[] | undefined => {
    const value = valueOf(root.headers, key);
    if (value === undefined || value === '') return [];
    const decoded = (entries: ParsedAddress[]): ParsedAddress[] | undefined => {
      const out: ParsedAddress[] = [];
      for (const entry of entries) {
        const name = (entry.name || '').toString().trim();
        if (entry.address === undefined || entry.address === '') {
          if (/=\?[^?]+\?[Bb]\?/.test(name)) return undefined;
        } else if (/=\?/.test(entry.address)) return undefined;
        const group = entry.group === undefined ? undefined : decoded(entry.group);
        if (entry.group !== undefined && group === undefined) return undefined;
        out.push({
          ...entry,
          name: name === '' ? name : decodeWords(name),
          ...(group === undefined ? {} : { group }),
        });
      }
      return out;
    };
    return decoded(addressparser(value) as ParsedAddress[]);
  };
  const from = addresses('from');
  const to = addresses('to');
  const cc = addresses('cc');
  const replyTo = addresses('reply-to');
  if (from === undefined || to === undefined || cc === undefined || replyTo === undefined)
    return undefined;
  const subject = valueOf(root.headers, 'subject');
  const references = valueOf(root.headers, 'references');
  const messageIdOf = (key: string) => {
    const value = valueOf(root.headers, key);
    return value ? ensureMessageIdFormat(decodeWords(value)) : undefined;
  };
  return {
    from,
    to,
    cc,
    replyTo,
    subject: subject ? decodeWords(subject) : undefined,
    messageId: messageIdOf('message-id'),
    inReplyTo: messageIdOf('in-reply-to'),
    references: references
      ? decodeWords(references)
          .split(/\s+/)
          .map(ensureMessageIdFormat)
          .filter((id): id is string => id !== undefined)
      : [],
    dateLine: root.headers.find((header) => header.key === 'date')?.line,
    ...(text === undefined ? {} : { text }),
    ...(html === undefined ? {} : { html }),
  };
}

/**
 * A message or part split into its header lines and its body (all after the empty line); undefined
 * without an empty line, or with a line that is neither `Name: value` nor a fold.
 */
function split(source: string): { headers: HeaderLine[]; body: string } | undefined {
  const headers: HeaderLine[] = [];
  let at = 0;
  for (;;) {
    const end = source.indexOf('\n', at);
    if (end === -1) return undefined;
    const line = source.slice(at, source[end - 1] === '\r' ? end - 1 : end);
    const next = end + 1;
    if (line === '') return { headers, body: source.slice(next) };
    if (line[0] === ' ' || line[0] === '\t') {
      const last = headers.at(-1);
      if (last === undefined) return undefined;
      last.line += `\n${line}`;
    } else {
      if (!FIELD.test(line)) return undefined;
      headers.push({ key: line.slice(0, line.indexOf(':')).toLowerCase(), line });
    }
    at = next;
  }
}

/**
 * The two parts of a multipart/alternative body, each without the line break before the next
 * delimiter (it belongs to the delimiter, RFC 2046); undefined unless the body is exactly a
 * preamble (may be empty), `--b`, a part, `--b`, a part, `--b--` and its line break, and no
 * other line starts `--b`.
 */
function alternatives(
  body: string,
  boundary: string,
): { headers: HeaderLine[]; body: string }[] | undefined {
  const delimiter = `--${boundary}`;
  const lines = body.split('\n');
  if (lines.pop() !== '') return undefined; // the body ends with a line break
  const at: number[] = [];
  let offset = 0;
  for (const [index, line] of lines.entries()) {
    const bare = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (bare.startsWith(delimiter)) {
      if (bare !== delimiter && !(bare === `${delimiter}--` && index === lines.length - 1))
        return undefined;
      at.push(offset, offset + line.length + 1);
    }
    offset += line.length + 1;
  }
  // [start of 1st delimiter, after it, start of 2nd, after it, start of the last, after it]
  // (A preamble before the first, which mailparser ignores, may be there.)
  if (at.length !== 6 || at[5] !== body.length) return undefined;
  const parts: { headers: HeaderLine[]; body: string }[] = [];
  for (const [from, to] of [
    [at[1]!, at[2]!],
    [at[3]!, at[4]!],
  ] as const) {
    const text = body.slice(from, to);
    const withoutBreak = text.endsWith('\r\n')
      ? text.slice(0, -2)
      : text.endsWith('\n')
        ? text.slice(0, -1)
        : text;
    const part = split(text);
    if (part === undefined) return undefined;
    parts.push({
      headers: part.headers,
      body: part.body.slice(0, part.body.length - (text.length - withoutBreak.length)),
    });
  }
  return parts;
}

/** mailparser's ensureMessageIDFormat. */
function ensureMessageIdFormat(value: string): string | undefined {
  if (value.length === 0) return undefined;
  let id = value;
  if (!id.startsWith('<')) id = `<${id}`;
  if (!id.endsWith('>')) id = `${id}>`;
  return id;
}
