import type { DataVersion } from './data-version.ts';

/** Enough for the pages a few polling clients repeat; a page of 100 summaries is ~60 KB. */
const MAX_PAGES = 128;

/**
 * Results of identical read queries, reused while the store's data version is unchanged: any
 * write anywhere (mail stored, a PATCH, a delete, a reset) empties it, so a result is always
 * what running the query again would give. It serves clients polling the same page.
 */
export class QueryCache<T> {
  private readonly results = new Map<string, T>();
  private seenVersion = '';

  constructor(private readonly version: DataVersion) {}

  /** The kept result for `key`, or `run`'s, given the data version it runs at. */
  get(key: string, run: (version: string) => T): T {
    const now = this.version.current();
    if (now !== this.seenVersion) {
      this.results.clear();
      this.seenVersion = now;
    }
    let result = this.results.get(key);
    if (result === undefined) {
      result = run(now);
      if (this.results.size >= MAX_PAGES) this.results.clear();
      this.results.set(key, result);
    }
    return result;
  }
}
