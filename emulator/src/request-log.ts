import type { Services } from './deps.ts';
import { lookupOf } from './domain/api-key-secrets.ts';
import type { EmulatorEvent } from './events.ts';
import { pathAndSearchOf } from './http/request-url.ts';
import type { SmtpOutcome } from './smtp/smtp-ingress.ts';

/** `--log text` (the default) or `--log json`; `--quiet` prints nothing. */
export type LogFormat = 'text' | 'json';

type Fetch = (request: Request, ...rest: never[]) => Response | Promise<Response>;

/** 10000-01-01T00:00:00.000Z, the first instant `toISOString` writes with a six-digit year. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_800_000;

/** Requests worth a line: the API's and the control plane's, not the docs, assets or dashboard. */
const LOGGED = /^\/(openapi\/v1|_mailtwin\/v1)(\/|$)/;

/**
 * The terminal's account of what happened (issue 17 item 3), one line each: an API or control
 * request (method, path, status, ms, key name, in that order), an email delivered to a mailbox
 * here, a webhook attempt (status, ms, signature). Text for people, JSON lines for tools. Lines
 * start only once `start` is called, after the banner, so the banner stays one block.
 */
export class RequestLog {
  private started = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly services: Services,
    private readonly format: LogFormat,
    private readonly write: (line: string) => void = bufferedStdout(),
  ) {}

  /**
   * The app's fetch handler, timed and logged. Not async: an answer the handler makes at once
   * is logged and handed back as it is, so the server writes it without awaiting it (issue 31
   * item 1: an async layer cost every request a promise and a turn of its own).
   */
  wrap<F extends Fetch>(fetch: F): F {
    const wrapped = (request: Request, ...rest: never[]) => {
      const startedAt = performance.now();
      const response = fetch(request, ...rest);
      return isPromise(response)
        ? response.then((answer) => this.logged(request, answer, startedAt))
        : this.logged(request, response, startedAt);
    };
    return wrapped as F;
  }

  /** Writes the line of an API or control request answered `response`; returns `response`. */
  private logged(request: Request, response: Response, startedAt: number): Response {
    if (this.started) {
      const url = pathAndSearchOf(request.url);
      if (LOGGED.test(url.pathname)) {
        this.emit({
          type: 'request',
          method: request.method,
          path: `${url.pathname}${url.search}`,
          status: response.status,
          ms: Math.round((performance.now() - startedAt) * 10) / 10,
          key: this.keyName(url.pathname, request, response.status),
        });
      }
    }
    return response;
  }

  start(): void {
    this.started = true;
    this.unsubscribe ??= this.services.deps.events.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /**
   * Whose request it was: the API key's name as the API decided it (or, for a request refused
   * before the key was read, found by the secret's lookup part, as the API finds it), `control`
   * for the control plane, `-` when none or when the API refused it.
   */
  private keyName(pathname: string, request: Request, status: number): string {
    if (pathname.startsWith('/_mailtwin/')) return 'control';
    if (status === 401) return '-';
    const decided = this.services.accessByRequest.of(request);
    if (decided !== undefined) return decided.key.name;
    const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const lookup = bearer === undefined ? undefined : lookupOf(bearer);
    if (lookup === undefined) return '-';
    return this.services.deps.store.directory.findKeyByLookup(lookup)?.key.name ?? '-';
  }

  private shownSecond = Number.NaN;
  /** `toISOString()` of the second `shownSecond` up to its milliseconds (`…T10:00:00.`). */
  private shownPrefix = '';

  /**
   * `new Date(ms).toISOString()`, with the date and time up to the second written once for the
   * lines of that second: a busy server logs thousands of requests a second.
   */
  private timeOf(ms: number): string {
    // Years 0000-9999 have the fixed 24-character form; any other is written in full.
    if (!(ms >= 0 && ms < LAST_FOUR_DIGIT_YEAR_MS)) return new Date(ms).toISOString();
    const second = Math.floor(ms / 1000);
    if (second !== this.shownSecond) {
      this.shownPrefix = new Date(second * 1000).toISOString().slice(0, 20);
      this.shownSecond = second;
    }
    return `${this.shownPrefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
  }

  /** A message handed over by SMTP (its deliveries get their own `email` lines). */
  smtpMessage(outcome: SmtpOutcome): void {
    if (!this.started) return;
    this.emit({
      type: 'smtp',
      from: outcome.from,
      bytes: outcome.bytes,
      delivered: outcome.delivered.map((email) => email.mailbox),
      refused:
        outcome.refused === undefined ? null : `${outcome.refused.code} ${outcome.refused.reason}`,
    });
  }

  private onEvent(event: EmulatorEvent): void {
    if (!this.started || event.type === 'emulator.stopping' || event.type === 'email.updated')
      return;
    if (event.type === 'email.stored') {
      if (event.folder === 'sent') return; // the sender's own copy is not a delivery
      const email = this.services.deps.store.emails.headline(event.emailId);
      if (email === undefined) return; // rolled back or already deleted
      this.emit({
        type: 'email',
        id: email.id,
        mailbox: email.mailbox,
        folder: email.folder,
        from: email.from,
        subject: email.subject,
      });
      return;
    }
    this.emit({
      type: 'webhook',
      event: event.event,
      webhookId: event.webhookId,
      deliveryId: event.deliveryId,
      attempt: event.number,
      status: event.statusCode,
      ms: event.latencyMs,
      signature: event.exchange.request.headers['X-Service-Signature'] ?? null,
      error: event.error,
    });
  }

  private emit(entry: LogEntry): void {
    // A text line has no time: it is read and formatted for JSON lines only.
    if (this.format !== 'json') {
      this.write(`${textOf(entry)}\n`);
      return;
    }
    const time = this.timeOf(this.services.deps.clock.now().getTime());
    this.write(`${JSON.stringify({ time, ...entry })}\n`);
  }
}

const isPromise = (value: Response | Promise<Response>): value is Promise<Response> =>
  typeof (value as Partial<Promise<Response>>).then === 'function';

/** Stdout to a file or /dev/null is written synchronously: lines of one tick go out in one write. */
const FLUSH_BYTES = 64 * 1024;

/**
 * A writer to stdout that gathers the lines written during one turn of the event loop and
 * writes them together once it turns (or when they pass 64 KB), in order, so a busy server
 * makes one write per turn instead of one per request.
 */
export function bufferedStdout(
  out: (text: string) => void = (text) => void process.stdout.write(text),
): (line: string) => void {
  let pending: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    bytes = 0;
    out(text);
  };
  // Lines still gathered when the process exits (a stop) are written, not lost.
  process.once('exit', flush);
  return (line) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(line);
    bytes += line.length;
    if (bytes >= FLUSH_BYTES) flush();
  };
}

type LogEntry =
  | { type: 'request'; method: string; path: string; status: number; ms: number; key: string }
  | {
      type: 'email';
      id: string;
      mailbox: string;
      folder: string;
      from: string;
      subject: string;
    }
  | { type: 'smtp'; from: string; bytes: number; delivered: string[]; refused: string | null }
  | {
      type: 'webhook';
      event: string;
      webhookId: string;
      deliveryId: string;
      attempt: number;
      status: number | null;
      ms: number;
      signature: string | null;
      error: string | null;
    };

/** One line for people: fixed order, names that contain spaces quoted. */
export function textOf(entry: LogEntry): string {
  switch (entry.type) {
    case 'request':
      return `${entry.method} ${entry.path} ${entry.status} ${entry.ms}ms ${quoted(entry.key)}`;
    case 'email':
      return `email ${entry.id} to ${entry.mailbox} (${entry.folder}) from ${entry.from} ${JSON.stringify(entry.subject)}`;
    case 'smtp':
      return entry.refused === null
        ? `smtp from ${entry.from || '<>'} ${entry.bytes} bytes delivered to ${entry.delivered.join(', ')}`
        : `smtp from ${entry.from || '<>'} ${entry.bytes} bytes refused: ${entry.refused}`;
    case 'webhook':
      return (
        `webhook ${entry.event} ${entry.deliveryId} attempt ${entry.attempt} to ${entry.webhookId}: ` +
        `${entry.status ?? 'no answer'} ${entry.ms}ms ${entry.signature ?? '-'}` +
        (entry.error === null ? '' : ` (${entry.error})`)
      );
  }
}

const quoted = (name: string) => (/[\s"]/.test(name) ? JSON.stringify(name) : name);
