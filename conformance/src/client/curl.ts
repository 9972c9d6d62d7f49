import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Exchange, ExchangePart } from './exchange-types.ts';
import type { Target } from './target.ts';

/**
 * How a replay names what it must not print: the target's URLs and the run's secrets, each by
 * the shell variable of its role, as the emulator's banner and the CLI's flags name them.
 */
export interface ReplayContext {
  /** `{base_url}`, printed as `$MAILTWIN_BASE_URL`. */
  baseUrl: string;
  /** The control plane's base URL, printed as `$MAILTWIN_CONTROL_URL`. */
  controlUrl?: string;
  /** `$MAILTWIN_API_KEY`, `$MAILTWIN_SECOND_API_KEY`, `$MAILTWIN_CONTROL_TOKEN`. */
  apiKey?: string;
  secondApiKey?: string;
  controlToken?: string;
  /**
   * Where the bytes of binary bodies and multipart files are saved (`dir`), and how a printed
   * command names that folder (`shown`: as the user gave `--report-dir`, so the command works
   * from where the run was started).
   */
  files?: { dir: string; shown?: string };
}

/**
 * The replay context of a check's target. `files` comes from the run (`--report-dir`'s
 * `replay-files/`); a run started without the CLI saves them in the system's temporary folder.
 */
export function replayContextFor(target: Target, files?: ReplayContext['files']): ReplayContext {
  const saved = files ?? { dir: join(tmpdir(), 'mailtwin-replay-files') };
  return {
    baseUrl: target.baseUrl,
    ...(target.control === undefined
      ? {}
      : { controlUrl: target.control.baseUrl, controlToken: target.control.token }),
    ...(target.apiKey === undefined ? {} : { apiKey: target.apiKey }),
    ...(target.secondApiKey === undefined ? {} : { secondApiKey: target.secondApiKey }),
    files: { dir: saved.dir, shown: saved.shown ?? saved.dir },
  };
}

/** A secret the printed command names by a shell variable instead of its value. */
export interface SecretVariable {
  secret: string;
  variable: string;
}

/** Below this length a secret is named only as a whole `Authorization` value (see redact.ts). */
const MIN_INLINE_SECRET = 8;

/** The role variables of a context, then the given ones (keys a check made). */
export function secretVariables(
  context: ReplayContext,
  made: readonly SecretVariable[] = [],
): SecretVariable[] {
  const roles: [string | undefined, string][] = [
    [context.apiKey, 'MAILTWIN_API_KEY'],
    [context.secondApiKey, 'MAILTWIN_SECOND_API_KEY'],
    [context.controlToken, 'MAILTWIN_CONTROL_TOKEN'],
  ];
  const named = roles
    .filter((r): r is [string, string] => r[0] !== undefined && r[0] !== '')
    .map(([secret, variable]) => ({ secret, variable }));
  return [...named, ...made];
}

/** The file a replay reads a body's bytes from: named by their SHA-256, so each is saved once. */
export function replayFileName(bytes: Uint8Array): string {
  return `${createHash('sha256').update(bytes).digest('hex')}.bin`;
}

/**
 * Writes the bytes a replay of these exchanges reads (`--data-binary @…`, `-F 'file=@…'`) into
 * `context.files.dir`; nothing without one.
 */
export function saveReplayFiles(exchanges: readonly Exchange[], context: ReplayContext): void {
  if (context.files === undefined) return;
  const blobs = exchanges.flatMap((x) => [
    ...(x.request.bytes === undefined ? [] : [x.request.bytes]),
    ...(x.request.parts ?? []).flatMap((p) => (p.bytes === undefined ? [] : [p.bytes])),
  ]);
  if (blobs.length === 0) return;
  mkdirSync(context.files.dir, { recursive: true });
  for (const bytes of blobs) writeFileSync(join(context.files.dir, replayFileName(bytes)), bytes);
}

/**
 * The exchange's request as a `curl` command a vendor can paste into a shell. URLs under the
 * base URL or the control plane start with `"$MAILTWIN_BASE_URL"` or `"$MAILTWIN_CONTROL_URL"`;
 * every secret of `variables` is printed as its variable, wherever it appears; a binary body or
 * a multipart file is read from its saved file. `silent` prints `-sS` instead of `-i`, for a
 * command whose output is piped (a key made through the control plane).
 */
export function toCurl(
  exchange: Exchange,
  context: ReplayContext,
  variables: readonly SecretVariable[] = secretVariables(context),
  silent = false,
): string {
  const { method, url, headers, body, bytes, parts } = exchange.request;
  const { controlUrl, baseUrl } = context;
  const control = controlUrl !== undefined && url.startsWith(controlUrl);
  const [prefix, urlVariable] = control
    ? [controlUrl, 'MAILTWIN_CONTROL_URL']
    : [baseUrl, 'MAILTWIN_BASE_URL'];
  const inline = variables.filter((v) => v.secret.length >= MIN_INLINE_SECRET);
  const word = (text: string, concat = false) => shellWord(text, inline, concat);
  const args = ['curl', silent ? '-sS' : '-i', '-X', method];
  args.push(
    url.startsWith(prefix)
      ? `"$${urlVariable}"${url.length === prefix.length ? '' : word(url.slice(prefix.length), true)}`
      : word(url, true),
  );
  for (const [name, value] of Object.entries(headers)) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(value)?.[1];
    const role = variables.find((v) => v.secret === bearer);
    if (name.toLowerCase() === 'authorization' && role !== undefined) {
      args.push('-H', `"Authorization: Bearer $${role.variable}"`);
    } else if (parts !== undefined && name.toLowerCase() === 'content-type') {
      // curl -F writes its own multipart Content-Type with its own boundary.
    } else {
      args.push('-H', word(`${name}: ${value}`));
    }
  }
  const folder = context.files?.shown ?? context.files?.dir ?? '.';
  const file = (data: Uint8Array) => `${folder}/${replayFileName(data)}`;
  if (parts !== undefined) {
    for (const part of parts) args.push(...formArgument(part, file, word));
  } else if (bytes !== undefined) {
    args.push('--data-binary', word(`@${file(bytes)}`));
  } else if (body !== undefined) {
    args.push('--data-binary', word(body));
  }
  return args.join(' ');
}

/** One multipart part: a text field as `--form-string`, a file as `-F 'name=@path;type=…'`. */
function formArgument(
  part: ExchangePart,
  file: (bytes: Uint8Array) => string,
  word: (text: string) => string,
): string[] {
  if (part.bytes === undefined) return ['--form-string', word(`${part.name}=${part.value ?? ''}`)];
  const spec = [`${part.name}=@${formValue(file(part.bytes))}`];
  if (part.filename !== undefined) spec.push(`filename=${formValue(part.filename)}`);
  // Last and unquoted: curl keeps a type's parameters (`text/plain;charset=utf-8`) only there,
  // and would send quotes as part of the type.
  if (part.type !== undefined && part.type !== '') spec.push(`type=${part.type}`);
  return ['-F', word(spec.join(';'))];
}

/** A value inside curl's `-F` syntax: double-quoted (with \ and " escaped) when it must be. */
function formValue(value: string): string {
  return value === '' || /[;,"\\\s]/.test(value)
    ? `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
    : value;
}

/**
 * `text` as one shell word, with each secret of `variables` as a variable reference. Without
 * a secret: single-quoted. With one: in double quotes when nothing else needs escaping there
 * (`"Authorization: Bearer $KEY_1"`), else single-quoted pieces joined to `"$VAR"`s; `concat`
 * always joins pieces.
 */
function shellWord(text: string, variables: readonly SecretVariable[], concat: boolean): string {
  const pieces = splitOnSecrets(text, variables);
  if (pieces.every((p) => typeof p === 'string')) return shellQuote(text);
  const literals = pieces.filter((p): p is string => typeof p === 'string');
  if (!concat && literals.every((l) => !/["$`\\!]/.test(l))) {
    return `"${pieces
      .map((p, i) => {
        if (typeof p === 'string') return p;
        const next = pieces[i + 1];
        return typeof next === 'string' && /^[A-Za-z0-9_]/.test(next)
          ? `\${${p.variable}}`
          : `$${p.variable}`;
      })
      .join('')}"`;
  }
  return pieces
    .filter((p) => p !== '')
    .map((p) => (typeof p === 'string' ? shellQuote(p) : `"$${p.variable}"`))
    .join('');
}

/** `text` cut at each occurrence of a secret, the longest secret first where two overlap. */
function splitOnSecrets(
  text: string,
  variables: readonly SecretVariable[],
): (string | SecretVariable)[] {
  const pieces: (string | SecretVariable)[] = [];
  let rest = text;
  for (;;) {
    let found: { at: number; variable: SecretVariable } | undefined;
    for (const variable of variables) {
      const at = rest.indexOf(variable.secret);
      if (
        at >= 0 &&
        (found === undefined ||
          at < found.at ||
          (at === found.at && variable.secret.length > found.variable.secret.length))
      )
        found = { at, variable };
    }
    if (found === undefined) break;
    pieces.push(rest.slice(0, found.at), found.variable);
    rest = rest.slice(found.at + found.variable.secret.length);
  }
  pieces.push(rest);
  return pieces;
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
