import { Abandoned, recordDecided } from '../contract/charge.ts';
import { recordBody, type Exchange } from './exchange.ts';
import type { RequestBody } from './exchange-types.ts';
import { waitingOnTarget } from './waiting.ts';
import { isWrite } from './safety.ts';
import type { SpecValidator } from '../contract/spec-validator.ts';
import type { Target } from './target.ts';
import { defaultDialect, type Dialect } from '../binding/dialect.ts';
import { ContractViolation, NoAnswer } from './answer-errors.ts';
import { basePath, enforcePolicy, noteUpload, type ClientPolicy } from './policy.ts';
import { canonicalAnswer, translatedBody } from './translation.ts';

export interface RequestOptions {
  method?: string;
  /** Relative to `{base_url}`, e.g. `/emails`; or an absolute URL with `absolute: true`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Sent as `application/json` unless `headers` sets another Content-Type. */
  json?: unknown;
  body?: RequestBody;
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

/** A write the target answered: what a MailWatch needs to account for the mail it made. */
export interface WriteAnswer {
  method: string;
  /** The path under `{base_url}`: `/emails/send`. */
  path: string;
  status: number;
  text: string;
}

/**
 * Sends requests to a target, records each exchange in `log` (for failure reports), and
 * validates every API response against the contract, failing on the first violation. Before
 * a request leaves, the policy is applied: an undeclared write fails the check, mail to an
 * address outside the given mailboxes skips it, and the rate limit is waited for.
 */
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
    let body = translatedBody(this.dialect, operationId, options.body);
    if (options.json !== undefined) {
      body = JSON.stringify(this.dialect.requestJson(operationId, options.json));
      if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
    }
    enforcePolicy(this.target, this.policy, method, url, options.json, body);
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
    const answer = await canonicalAnswer(this.dialect, operationId, response, rawText, (id) =>
      this.readCreated(id, options.apiKey),
    );
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
        noteUpload(this.policy, text);
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
