import type { Context, MiddlewareHandler } from 'hono';
import type { DataVersion } from '../store/data-version.ts';
import type { AnswerSlot, ApiEnv } from './auth.ts';
import { passesOn } from './one-handler.ts';

/** What `c.json` sends, so a ready answer carries the same header. */
const JSON_TYPE = { 'content-type': 'application/json' };

/** Enough for the pages a few polling clients repeat, bounded in bytes as in count. */
const MAX_ANSWERS = 256;
const MAX_BYTES = 16 * 1024 * 1024;
/** The keys and URLs asked once at the kept data version, at most (then forgotten). */
const MAX_ASKED_ONCE = 1024;

/**
 * A route's 200 answer as ready JSON bytes, computed from the data at `version` (what the
 * store's read reports), which the response cache, when it passed the request on, keeps and
 * serves again for the same key and URL while nothing was written.
 */
export function answerReady(
  c: Context<ApiEnv>,
  body: Uint8Array<ArrayBuffer>,
  version: string,
): Response {
  c.get('keepAnswer')?.keep(body, version);
  return c.body(body, 200, JSON_TYPE);
}

/**
 * Serves again the bytes of a GET answered 200 with `answerReady`, for the same API key and
 * URL, while the store's data version is unchanged. Any write (mail stored, a PATCH, a grant
 * revoked, a key disabled, a reset) empties it, so an answer served from it is byte for byte
 * what the route would answer now: the key's access and the data are as they were. Mounted
 * after authentication and the rate limit, which every request still passes; it saves the
 * parameter checks, the query parsing, the query and the copying of a polling client's repeats.
 * A request it cannot answer is passed on as it is, with the next handler's own promise (no
 * async layer of its own: issue 31 item 1, the cache's miss is nearly free); the route's
 * `answerReady` hands it the answer.
 *
 * An answer is kept only the second time its key and URL are asked at one data version (a
 * doorkeeper): a page asked once is never kept (issue 31 item 1). On the client mix most
 * pages are asked once between two writes; kept, each answer's bytes (memory outside V8's
 * heap) that a young collection found still held were promoted with it and freed only by a
 * full collection, and V8 counts them towards starting one: over sockets, the 10,000-email
 * `--db` mix ran 15 mark-compacts in 6 s keeping every answer, 1-5 keeping repeats, none
 * keeping nothing (the p99's pauses), for hits on 15% of its GETs against 8%. A client that
 * polls a page loses one hit a write.
 */
export class ResponseCache {
  private answers = new Map<string, Uint8Array<ArrayBuffer>>();
  /** Keys and URLs asked once at `seenVersion` and not kept: the next ask keeps its answer. */
  private askedOnce = new Set<string>();
  private bytes = 0;
  private seenVersion = '';
  /** GETs answered from kept bytes, and GETs passed on to the route, since start (bench). */
  readonly counts = { hits: 0, misses: 0 };

  middleware(version: DataVersion): MiddlewareHandler<ApiEnv> {
    return passesOn((c, next) => {
      if (c.req.method !== 'GET') return next();
      const now = version.current();
      if (now !== this.seenVersion) this.forget(now);
      // The key's id stands for its access: at one data version a key has one access.
      const key = `${c.get('access').key.id} ${c.req.url}`;
      const ready = this.answers.get(key);
      if (ready !== undefined) {
        this.counts.hits += 1;
        return Promise.resolve(c.body(ready, 200, JSON_TYPE));
      }
      this.counts.misses += 1;
      if (this.admits(key)) c.set('keepAnswer', new Slot(this, key, now));
      return next();
    });
  }

  /** What is kept now: answers and their bytes, and keys and URLs asked once (tests). */
  get kept(): { answers: number; bytes: number; askedOnce: number } {
    return { answers: this.answers.size, bytes: this.bytes, askedOnce: this.askedOnce.size };
  }

  /** Whether the answer to `key` is to be kept: it was asked once before at this version. */
  private admits(key: string): boolean {
    if (this.askedOnce.delete(key)) return true;
    if (this.askedOnce.size >= MAX_ASKED_ONCE) this.askedOnce = new Set();
    this.askedOnce.add(key);
    return false;
  }

  /**
   * Keeps `body` for `key`, if computed from the data the key's access was decided at and the
   * request looked up at: nothing was written between. The route's read says its version, so
   * none is read again here.
   */
  keep(key: string, body: Uint8Array<ArrayBuffer>, lookedUpAt: string, readAt: string): void {
    if (readAt !== lookedUpAt || lookedUpAt !== this.seenVersion) return;
    if (this.answers.size >= MAX_ANSWERS || this.bytes + body.length > MAX_BYTES)
      this.forget(lookedUpAt);
    this.answers.set(key, body);
    this.bytes += body.length;
  }

  /**
   * Drops the containers whole rather than clearing them: a cleared Map or Set that had grown
   * old keeps its new entries in an old-generation table, so answers held a moment were
   * promoted all the same and left to full collections (12-20 mark-compacts in 6 s on the
   * 10,000-email `--db` mix; none with fresh containers).
   */
  private forget(version: string): void {
    this.answers = new Map();
    this.askedOnce = new Set();
    this.bytes = 0;
    this.seenVersion = version;
  }
}

class Slot implements AnswerSlot {
  constructor(
    private readonly cache: ResponseCache,
    private readonly key: string,
    private readonly lookedUpAt: string,
  ) {}

  keep(body: Uint8Array<ArrayBuffer>, version: string): void {
    this.cache.keep(this.key, body, this.lookedUpAt, version);
  }
}
