import type { Access } from '../domain/access.ts';

/** A client may send many distinct strings as keys; refused ones are never kept. */
const MAX_KEYS = 1024;

/**
 * The access decided for each accepted bearer secret, reused while what access is decided from
 * is unwritten (`DirectoryStore.accessWrites`): a key disabled, an owner disabled, a grant
 * revoked, a mailbox removed or a reset makes the next request decide afresh, so a change is
 * effective on the next request (§5) as before; mail stored or changed does not. It saves the
 * key lookup, hash comparison and grant queries of a client's every request, and of the first
 * request after each of its writes (issue 31 item 1).
 */
export class DecidedAccess {
  private readonly byBearer = new Map<string, Access>();
  private version = -1;

  /** The access kept for `bearer`, if the access tables' writes are still `now`. */
  get(bearer: string, now: number): Access | undefined {
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
