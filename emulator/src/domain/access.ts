import type { ApiKey, Mailbox, Owner } from './types.ts';

/**
 * Who is calling and what they may touch (§2.1, §5): decided by the edge from the data as it is
 * at the request (http/auth.ts), and handed to the services that act for the caller.
 */
export interface Access {
  key: ApiKey;
  owner: Owner;
  /** The mailboxes this key may touch now, by address. */
  mailboxes: Map<string, Mailbox>;
}

/**
 * §2.1, §5 rule 3: what a key may touch is its owner's current grants, narrowed by its scope.
 * Evaluated on every request, so a revoked grant or a changed scope applies at once.
 */
export function mailboxesKeyMayTouch(
  key: Pick<ApiKey, 'scope' | 'domain' | 'mailboxes'>,
  ownerGrants: readonly { address: string; domain: string }[],
): Set<string> {
  switch (key.scope) {
    case 'follow-owner':
      return new Set(ownerGrants.map((g) => g.address));
    case 'one-domain':
      return new Set(ownerGrants.filter((g) => g.domain === key.domain).map((g) => g.address));
    case 'selected-mailbox': {
      const listed = new Set(key.mailboxes);
      return new Set(ownerGrants.filter((g) => listed.has(g.address)).map((g) => g.address));
    }
  }
}
