import type { Access } from '../domain/access.ts';

/** A client may send many distinct strings as keys; refused ones are never kept. */
const MAX_KEYS = 1024;

/**
 * The access decided for each accepted bearer secret, reused while the store's data version is
 * unchanged: any write (a key disabled, an owner disabled, a grant revoked, a reset, mail
 * stored) makes the next request decide afresh, so a change is effective on the next request
 * (§5) as before. It saves the key lookup, hash comparison and grant queries of a polling
 * client's every request.
 */
export class DecidedAccess {
  private readonly byBearer = new Map<string, Access>();
  private version = '';

  /** The access kept for `bearer`, if the data version is still `now` (`DataVersion`). */
  get(bearer: string, now: string): Access | undefined {
    if (now !== this.version) {
      this.byBearer.clear();
      this.version = now;
      return undefined;
    }
    return this.byBearer.get(bearer);
  }

  /** Keeps an access decided after `get` found none, at the version `get` saw. */
  set(bearer: string, access: Access): void {
    if (this.byBearer.size >= MAX_KEYS) this.byBearer.clear();
    this.byBearer.set(bearer, access);
  }
}
