import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { asOneHandler } from './one-handler.ts';

/** Enough for every path of a client's mix; a path longer than this is matched, not kept. */
const MAX_KEPT = 1024;
const MAX_PATH = 256;

/**
 * Hono's default router (the first of RegExpRouter and TrieRouter that takes every route; the
 * emulator's routes need TrieRouter), remembering what each method and path matched: TrieRouter
 * walks its tree and sorts the handlers it found on every request (the host check, the API's edge
 * and the route), and a client asks the same few paths over and over. A match depends on the
 * routes alone, which are all added before the first request (adding one forgets every match
 * kept), so a kept match is the router's own answer. Hono only reads a match. A match whose
 * handlers all pass on but the last is given as one handler that runs them in turn
 * (one-handler.ts), so Hono calls it directly instead of composing them for every request.
 */
export class MemoRouter<T> implements Router<T> {
  name = 'MemoRouter';
  private readonly router: Router<T>;
  private readonly kept = new Map<string, Result<T>>();

  constructor(router?: Router<T>) {
    this.router =
      router ?? new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  }

  add(method: string, path: string, handler: T): void {
    this.kept.clear();
    this.router.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_PATH) return asOneHandler(this.router.match(method, path));
    const key = `${method} ${path}`;
    let result = this.kept.get(key);
    if (result === undefined) {
      result = asOneHandler(this.router.match(method, path));
      if (this.kept.size >= MAX_KEPT) this.kept.clear();
      this.kept.set(key, result);
    }
    return result;
  }
}
