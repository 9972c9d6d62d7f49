import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.ts';
import { lookupOf, secretMatches } from '../domain/api-key-secrets.ts';
import { mailboxesKeyMayTouch, type Access } from '../domain/access.ts';
import type { Store } from '../store/store.ts';
import { DecidedAccess } from './decided-access.ts';
import { passesOn } from './one-handler.ts';

export type ApiEnv = {
  Variables: {
    access: Access;
    /**
     * Set by the response cache on a GET it passed on: where the route's 200 answer
     * (`answerReady`) is kept, against the data version the request was looked up at (after
     * `access` was decided, with nothing written between).
     */
    keepAnswer?: AnswerSlot;
  };
};

/**
 * Where a GET the response cache passed on may leave its 200 answer (`answerReady`,
 * response-cache.ts), with the data version that answer was computed at.
 */
export interface AnswerSlot {
  keep(body: Uint8Array<ArrayBuffer>, version: string): void;
}

const KEY_ELSEWHERE = ['api_key', 'apikey', 'apiKey', 'key', 'token', 'access_token'];

/**
 * §5: `Authorization: Bearer <API_KEY>` only. A key anywhere else is never read (D-29); an
 * unknown, disabled or ownerless key is refused identically, effective on the next request.
 */
export function requireApiKey(store: Store): MiddlewareHandler<ApiEnv> {
  const decided = new DecidedAccess();
  // Not async: a request passes with the next handler's own promise, one fewer a request.
  return passesOn((c, next) => {
    const header = c.req.header('authorization');
    const bearer = header === undefined ? undefined : /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1];
    if (bearer === undefined) {
      const query = new URL(c.req.url).searchParams;
      const misplaced =
        KEY_ELSEWHERE.some((name) => query.has(name)) || c.req.header('x-api-key') !== undefined;
      throw new ApiError(
        'missing_api_key',
        misplaced
          ? 'The API key is accepted only in the Authorization: Bearer header, never in the query string or another header.'
          : 'Send the API key as Authorization: Bearer <API_KEY>.',
      );
    }
    const known = decided.get(bearer, store.directory.accessWrites.writesSeen());
    if (known !== undefined) {
      c.set('access', known);
      return next();
    }
    const lookup = lookupOf(bearer);
    const found = lookup === undefined ? undefined : store.directory.findKeyByLookup(lookup);
    const matches = secretMatches(bearer, found?.secretHash);
    const owner = found === undefined ? undefined : store.directory.getOwner(found.key.ownerId);
    if (
      !matches ||
      found === undefined ||
      found.key.disabled ||
      owner === undefined ||
      owner.disabled
    ) {
      throw new ApiError('invalid_api_key', 'The API key is not valid.');
    }
    const grants = store.directory.grantedMailboxes(owner.id);
    const allowed = mailboxesKeyMayTouch(found.key, grants);
    const access: Access = {
      key: found.key,
      owner,
      mailboxes: new Map(grants.filter((m) => allowed.has(m.address)).map((m) => [m.address, m])),
    };
    decided.set(bearer, access);
    c.set('access', access);
    return next();
  });
}
