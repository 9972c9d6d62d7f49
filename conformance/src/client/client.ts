import { Abandoned, ChargedFailure, recordDecided } from '../contract/charge.ts';
import { recordBody, type Exchange } from './exchange.ts';
import type { RateLimiter } from './rate-limit.ts';
import { waitingOnTarget } from './waiting.ts';
import { SafetyRefusal, UndeclaredWrite, disallowedRecipients, isWrite } from './safety.ts';
import type { ContractCharge, ContractLayer, SpecValidator } from '../contract/spec-validator.ts';
import type { Target } from './target.ts';
import { defaultDialect, type Dialect } from '../binding/dialect.ts';

export interface RequestOptions {
  method?: string;
  /** Relative to `{base_url}`, e.g. `/emails`; or an absolute URL with `absolute: true`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Sent as `application/json` unless `headers` sets another Content-Type. */
  json?: unknown;
  body?: string | Uint8Array | FormData;
  /** The key to send; defaults to the target's key; `null` sends no Authorization header. */
  apiKey?: string | null;
  /** Treat `path` as an absolute URL outside the API (no spec validation, no key). */
  absolute?: boolean;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** The parsed JSON body; throws with the exchange when the body is not JSON. */
  json<T = unknown>(): T;
  exchange: Exchange;
  /**
   * Whether this is the target's answer to an error condition (mailtwin's code, D-12), by its
   * binding: also when the target answers several conditions alike, which the checks' names
   * cannot tell apart (binding/dialect.ts).
   */
  answersError?(condition: string): boolean;
}

/**
 * A response broke spec/openapi.yaml. It is charged to one rule (charge.ts): a documented rule
 * when it breaks what the service document requires, else the D-rule of the decided part it
 * breaks (spec/openapi.yaml `x-contract-layers`), which warns unless the run is strict. The
 * message names the operation, status and problem, each with its layer and rule.
 */
export class ContractViolation extends ChargedFailure {
  override name = 'ContractViolation';
  readonly layer: ContractLayer;

  constructor(
    readonly exchange: Exchange,
    charge: ContractCharge = { ruleId: '4-R2', layer: 'documented' },
  ) {
    const what =
      charge.layer === 'documented'
        ? `the response breaks what the service document requires (spec/openapi.yaml, documented rule ${charge.ruleId})`
        : `the response breaks only decided parts of spec/openapi.yaml (spec/DECISIONS.md ${charge.ruleId}; a deployment may decide otherwise: a warning unless --strict)`;
    super(charge.ruleId, new Error(`${what}:\n  - ${exchange.violations.join('\n  - ')}`), true);
    this.layer = charge.layer;
  }
}

/** No complete answer (status, headers and body) came within the request deadline. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(
    readonly exchange: Exchange,
    timeoutMs: number,
  ) {
    super(
      `no complete answer to ${exchange.request.method} ${exchange.request.url} within ${timeoutMs} ms (--request-timeout): every request must be answered, bad input included`,
    );
  }
}

/** What a client may send, how fast, and where it counts what it sent. */
export interface ClientPolicy {
  /**
   * The check declared the need `destructive`: it may send a request that can write through
   * the API (any method but GET, HEAD and OPTIONS to anything but the control plane).
   */
  writes: boolean;
  /** The `--mailbox` addresses; when set, mail may go only to them and the suite's own domain. */
  mailboxes?: readonly string[];
  /** Waits for a free slot before every request (`--max-rps`). */
  limiter?: RateLimiter;
  /** Counts every request sent, control plane and public URLs included. */
  counter?: { requests: number };
  /** How long a request may take, answer body included (`--request-timeout`); none when unset. */
  requestTimeoutMs?: number;
  /**
   * Collects every file the target stored (a 2xx to POST /attachments): no endpoint deletes
   * an upload (§4.9), so a run against a live target lists what it leaves behind.
   */
  uploads?: StoredUpload[];
  /**
   * The target's binding (binding/dialect.ts): requests leave in its names, answers come back
   * in the checks' names. Unset: the default binding (spec/DECISIONS.md).
   */
  dialect?: Dialect;
}

/** A file a check uploaded and could not delete: its id, name and size as the target answered. */
export interface StoredUpload {
  id: string;
  name?: string;
  size?: number;
}

/**
 * Sends requests to a target, records each exchange in `log` (for failure reports), and
 * validates every API response against the contract, failing on the first violation. Before
 * a request leaves, the policy is applied: an undeclared write fails the check, mail to an
 * address outside the given mailboxes skips it, and the rate limit is waited for.
 */
/** A write the target answered: what a MailWatch needs to account for the mail it made. */
export interface WriteAnswer {
  method: string;
  /** The path under `{base_url}`: `/emails/send`. */
  path: string;
  status: number;
  text: string;
}

export class ApiClient {
  private readonly writeListeners: ((answer: WriteAnswer) => void)[] = [];

  constructor(
    private readonly target: Target,
    private readonly validator: SpecValidator,
    readonly log: Exchange[] = [],
    private readonly policy: ClientPolicy = { writes: true },
  ) {}

  get baseUrl(): string {
    return this.target.baseUrl;
  }

  /**
   * Tells `listener` of every write to the API the target answered, before the answer is
   * judged: mail made by a write whose answer breaks the contract (a decided status) still
   * exists, and must be awaited and cleaned up like any other.
   */
  onWriteAnswered(listener: (answer: WriteAnswer) => void): void {
    this.writeListeners.push(listener);
  }

  /** The target's binding, through which requests and answers are translated. */
  get dialect(): Dialect {
    return (this.policy.dialect ??= defaultDialect());
  }

  /** Set once the check this client serves has ended (it ran out of time): no more requests. */
  private stopped = false;

  /** Refuses every later request: a check abandoned for its time sends nothing more. */
  stop(): void {
    this.stopped = true;
  }

  async request(options: RequestOptions): Promise<ApiResponse> {
    if (this.stopped) throw new Abandoned('the check ran out of time');
    const method = (options.method ?? 'GET').toUpperCase();
    const url = new URL(options.absolute ? options.path : `${this.target.baseUrl}${options.path}`);
    const apiPath = () => url.pathname.slice(basePath(this.target.baseUrl).length);
    // The operation, for the binding's translations; none are needed under the default.
    const operationId =
      options.absolute || this.dialect.isDefault
        ? undefined
        : this.validator.match(method, apiPath())?.operationId;
    const query = this.dialect.requestQuery(operationId, options.query ?? {});
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { ...options.headers };
    const key = options.apiKey === undefined ? this.target.apiKey : options.apiKey;
    if (key != null && !options.absolute && !hasHeader(headers, 'authorization')) {
      headers.Authorization = `Bearer ${key}`;
    }
    let body = this.translatedBody(operationId, options.body);
    if (options.json !== undefined) {
      body = JSON.stringify(this.dialect.requestJson(operationId, options.json));
      if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
    }
    this.enforcePolicy(method, url, options.json, body);
    const exchange: Exchange = {
      request: { method, url: url.toString(), headers, ...(await recordBody(body)) },
      violations: [],
    };
    this.log.push(exchange);

    if (this.policy.limiter !== undefined) {
      const limiter = this.policy.limiter;
      await waitingOnTarget(() => limiter.acquire());
    }
    if (this.policy.counter !== undefined) this.policy.counter.requests += 1;
    const { response, bytes } = await this.exchangeWithin(
      exchange,
      (signal) => new Request(url, { method, headers, body: body ?? null, signal }),
    );
    const rawText = new TextDecoder().decode(bytes);
    exchange.response = {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      bodyText: rawText,
    };
    const answer = await this.canonicalAnswer(operationId, response, rawText, options);
    const { status, text } = answer;
    if (!options.absolute && isWrite(method)) {
      for (const listener of this.writeListeners)
        listener({ method, path: apiPath(), status, text });
    }
    if (!options.absolute) {
      const raw = {
        method,
        path: apiPath(),
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: bytes,
      };
      const judgement = this.validator.judge(
        raw,
        answer.changed ? { ...raw, status, body: new TextEncoder().encode(text) } : raw,
      );
      exchange.violations = judgement.violations;
      if (judgement.charge !== undefined) {
        const violation = new ContractViolation(exchange, judgement.charge);
        // A departure from a decided part is recorded and the check goes on (charge.ts).
        if (judgement.charge.layer === 'documented' || !recordDecided(violation)) throw violation;
      }
      if (
        method === 'POST' &&
        status >= 200 &&
        status < 300 &&
        url.pathname.endsWith('/attachments')
      )
        this.noteUpload(text);
    }
    return {
      status,
      headers: response.headers,
      bytes,
      text,
      exchange,
      answersError: (condition) => this.dialect.answersError(condition, response.status, rawText),
      json<T>(): T {
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new Error(
            `expected a JSON body from ${method} ${url.pathname}, got: ${text.slice(0, 200)}`,
          );
        }
      },
    };
  }

  /**
   * A body given as JSON text (generated inputs are), in the target's names like `json`; text
   * that is not a JSON object goes as it is.
   */
  private translatedBody(
    operationId: string | undefined,
    body: RequestOptions['body'],
  ): RequestOptions['body'] {
    if (this.dialect.isDefault || typeof body !== 'string') return body;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return body;
    }
    const translated = this.dialect.requestJson(operationId, parsed);
    return translated === parsed ? body : JSON.stringify(translated);
  }

  /**
   * The answer in the checks' names (binding/dialect.ts). A send, reply or forward whose
   * binding answers only a reference to the email is followed by a GET of it, as a client of
   * that deployment would read the sent copy.
   */
  private async canonicalAnswer(
    operationId: string | undefined,
    response: Response,
    rawText: string,
    options: RequestOptions,
  ): Promise<{ status: number; text: string; changed: boolean }> {
    const unchanged = { status: response.status, text: rawText, changed: false };
    if (this.dialect.isDefault || operationId === undefined) return unchanged;
    let json: unknown;
    const isJson = /^application\/([\w.-]+\+)?json\b/i.test(
      response.headers.get('content-type') ?? '',
    );
    if (isJson) {
      try {
        json = JSON.parse(rawText);
      } catch {
        return unchanged;
      }
    }
    const answer = this.dialect.canonicalAnswer(operationId, response.status, json);
    const created = this.dialect.created(operationId);
    if (created?.answer === 'reference' && response.status === created.status) {
      const id = referencedId(created.emailId, json, response.headers);
      const detail = id === undefined ? undefined : await this.readCreated(id, options.apiKey);
      if (detail !== undefined) return { status: answer.status, text: detail, changed: true };
    }
    if (answer.json === undefined)
      return { ...unchanged, status: answer.status, changed: answer.status !== response.status };
    const text = JSON.stringify(answer.json);
    return { status: answer.status, text, changed: true };
  }

  /** The created email a reference answer names, read as the checks' email detail. */
  private async readCreated(
    id: string,
    apiKey: string | null | undefined,
  ): Promise<string | undefined> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const detail = await this.request({
        path: `/emails/${encodeURIComponent(id)}`,
        ...(apiKey === undefined ? {} : { apiKey }),
      });
      if (detail.status === 200) return detail.text;
      if (detail.status !== 404) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return undefined;
  }

  private noteUpload(text: string): void {
    if (this.policy.uploads === undefined) return;
    try {
      const { id, name, size } = JSON.parse(text) as Partial<StoredUpload>;
      if (typeof id !== 'string') return;
      this.policy.uploads.push({
        id,
        ...(typeof name === 'string' ? { name } : {}),
        ...(typeof size === 'number' ? { size } : {}),
      });
    } catch {
      // Not JSON: the contract check above has already judged the answer.
    }
  }

  /**
   * Sends the request and reads the whole answer, or throws NoAnswer once the deadline passes.
   * The abort closes a socket to a live target; the race also ends a wait on a target that
   * ignores the signal (the in-process emulator).
   */
  private async exchangeWithin(
    exchange: Exchange,
    build: (signal: AbortSignal | undefined) => Request,
  ): Promise<{ response: Response; bytes: Uint8Array }> {
    const timeoutMs = this.policy.requestTimeoutMs;
    const read = async (signal?: AbortSignal) => {
      let response: Response;
      try {
        response = await this.target.fetch(build(signal));
      } catch (error) {
        // A kept-alive connection the target closed just as this request reused it: nothing
        // reached the target, and a GET or HEAD may be sent again (RFC 9110 §9.2.2), once.
        if (!reusedConnectionClosed(error) || !['GET', 'HEAD'].includes(exchange.request.method))
          throw error;
        response = await this.target.fetch(build(signal));
      }
      return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
    };
    if (timeoutMs === undefined) return read();
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new NoAnswer(exchange, timeoutMs));
      }, timeoutMs);
    });
    try {
      return await Promise.race([read(abort.signal), deadline]);
    } catch (error) {
      if (abort.signal.aborted) throw new NoAnswer(exchange, timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Throws before anything is sent when the request breaks the policy (safety.ts). */
  private enforcePolicy(
    method: string,
    url: URL,
    json: unknown,
    body: RequestOptions['body'],
  ): void {
    const control = this.target.control?.baseUrl;
    const toControl =
      control !== undefined && (url.href === control || url.href.startsWith(`${control}/`));
    const apiBase = new URL(this.target.baseUrl);
    const apiPath = basePath(this.target.baseUrl);
    const toApi =
      url.origin === apiBase.origin &&
      (apiPath === '' || url.pathname === apiPath || url.pathname.startsWith(`${apiPath}/`));
    if (toControl || !isWrite(method)) return;
    if (!this.policy.writes) {
      throw new UndeclaredWrite(
        `this check sent ${method} ${url.pathname} but does not declare needs: ['destructive'] ` +
          '(conformance/src/check/check.ts): a check that may write through the API must say so, ' +
          'so that --profile read-only and targets without --destructive leave it out',
      );
    }
    if (this.policy.mailboxes === undefined || !toApi) return;
    const refused = disallowedRecipients(
      method,
      url.pathname.slice(apiPath.length),
      { json, ...(typeof body === 'string' ? { text: body } : {}) },
      this.policy.mailboxes,
    );
    if (refused.length > 0) {
      throw new SafetyRefusal(
        `would send mail to ${refused.join(', ')}: the suite sends only to the --mailbox addresses and its own *.conformance.test addresses (allow an address with --mailbox)`,
      );
    }
  }
}

/** The created email's id where the binding says it is: `body:<JSON pointer>` or `header:<name>`. */
function referencedId(where: string, json: unknown, headers: Headers): string | undefined {
  if (where.startsWith('header:')) {
    const value = headers.get(where.slice('header:'.length));
    return value
      ?.split('/')
      .filter((s) => s !== '')
      .pop()
      ?.split('?')[0];
  }
  let node: unknown = json;
  for (const token of where.slice('body:'.length).split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return typeof node === 'string' ? node : undefined;
}

/**
 * The path of `{base_url}` without a trailing slash: `/openapi/v1`, or `` for an API served at
 * the root (a proxy such as Prism, `--unversioned-base-url`), whose URL's pathname is `/`.
 */
function basePath(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}

/** Socket errors undici reports when the peer closed the connection before any answer. */
const CLOSED_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Whether fetch failed because the connection closed before the answer began. */
function reusedConnectionClosed(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return (
    error instanceof TypeError &&
    typeof cause?.code === 'string' &&
    CLOSED_CONNECTION_CODES.has(cause.code)
  );
}
