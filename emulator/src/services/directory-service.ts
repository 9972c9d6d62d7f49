import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { composeKeySecret, hashSecret, KEY_PATTERN, lookupOf } from '../domain/api-key-secrets.ts';
import { domainOf, isValidAddress } from '../domain/addresses.ts';
import {
  SCOPES,
  type ApiKey,
  type Mailbox,
  type Owner,
  type Scope,
  type Suppression,
} from '../domain/types.ts';
import type { Store } from '../store/store.ts';

export interface NewKey {
  ownerId: string;
  name: string;
  scope: Scope;
  domain?: string | null;
  mailboxes?: string[];
  /** A fixed secret (fixtures); random when absent. */
  secret?: string;
  id?: string;
}

/**
 * The dashboard's directory (§2.1, §2.2): owners, mailboxes, grants, API keys, suppressions.
 * Used by the control plane and the fixture loader; every rule about them lives here.
 */
export class DirectoryService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  createOwner(input: { name: string; id?: string; disabled?: boolean }): Owner {
    const name = requireText(input.name, 'name', 200);
    const id = input.id ?? this.ids.prefixed('own');
    if (this.store.directory.getOwner(id))
      throw new ApiError('already_exists', `Owner ${quoteForMessage(id)} already exists.`, 'id');
    return this.store.directory.createOwner({
      id,
      name,
      disabled: input.disabled ?? false,
      createdAt: this.now(),
    });
  }

  owner(id: string): Owner {
    const owner = this.store.directory.getOwner(id);
    if (owner === undefined)
      throw new ApiError('owner_not_found', `No owner ${quoteForMessage(id)}.`, 'ownerId');
    return owner;
  }

  setOwnerDisabled(id: string, disabled: boolean): Owner {
    this.owner(id);
    return this.store.directory.setOwnerDisabled(id, disabled) as Owner;
  }

  createMailbox(input: { address: string; displayName?: string | null }): Mailbox {
    const address = requireText(input.address, 'address', 254).toLowerCase();
    if (!isValidAddress(address))
      throw new ApiError(
        'invalid_address',
        `${quoteForMessage(input.address)} is not an email address.`,
        'address',
      );
    if (this.store.directory.getMailbox(address)) {
      throw new ApiError(
        'already_exists',
        `Mailbox ${quoteForMessage(address)} already exists.`,
        'address',
      );
    }
    const displayName =
      input.displayName == null ? null : requireText(input.displayName, 'displayName', 200);
    return this.store.directory.createMailbox({ address, domain: domainOf(address), displayName });
  }

  mailbox(address: string, field = 'mailbox'): Mailbox {
    const mailbox = this.store.directory.getMailbox(address.toLowerCase());
    if (mailbox === undefined)
      throw new ApiError('mailbox_not_found', `No mailbox ${quoteForMessage(address)}.`, field);
    return mailbox;
  }

  grant(ownerId: string, address: string): void {
    this.owner(ownerId);
    this.store.directory.grant(ownerId, this.mailbox(address).address);
  }

  revoke(ownerId: string, address: string): void {
    this.owner(ownerId);
    if (!this.store.directory.revoke(ownerId, address.toLowerCase())) {
      throw new ApiError(
        'mailbox_not_found',
        `Owner ${quoteForMessage(ownerId)} has no grant for ${quoteForMessage(address)}.`,
        'mailbox',
      );
    }
  }

  /** Creates a key; the secret is returned here once and never again (§2.1). */
  createKey(input: NewKey): { key: ApiKey; secret: string } {
    this.owner(input.ownerId);
    const name = requireText(input.name, 'name', 200);
    if (!(SCOPES as readonly string[]).includes(input.scope)) {
      throw new ApiError('invalid_field', `scope must be one of ${SCOPES.join(', ')}.`, 'scope');
    }
    let domain: string | null = null;
    let mailboxes: string[] = [];
    if (input.scope === 'one-domain') {
      domain = requireText(input.domain ?? '', 'domain', 252).toLowerCase();
      if (!this.store.directory.hasDomain(domain)) {
        throw new ApiError(
          'invalid_field',
          `No domain ${quoteForMessage(domain)}; create it or one of its mailboxes first.`,
          'domain',
        );
      }
    } else if (input.domain != null) {
      throw new ApiError('invalid_field', 'domain applies only to one-domain keys.', 'domain');
    }
    if (input.scope === 'selected-mailbox') {
      if (!Array.isArray(input.mailboxes) || input.mailboxes.length === 0) {
        throw new ApiError(
          'missing_field',
          'a selected-mailbox key lists its mailboxes.',
          'mailboxes',
        );
      }
      mailboxes = [
        ...new Set(input.mailboxes.map((m, i) => this.mailbox(m, `mailboxes[${i}]`).address)),
      ];
    } else if (input.mailboxes !== undefined && input.mailboxes.length > 0) {
      throw new ApiError(
        'invalid_field',
        'mailboxes applies only to selected-mailbox keys.',
        'mailboxes',
      );
    }
    let secret = input.secret;
    if (secret === undefined) {
      secret = composeKeySecret(this.ids.secret(12), this.ids.secret(32));
    } else if (!KEY_PATTERN.test(secret)) {
      throw new ApiError(
        'invalid_field',
        'secret must look like sk-<12 letters or digits>_<32 letters or digits>.',
        'secret',
      );
    }
    const lookup = lookupOf(secret) as string;
    if (this.store.directory.findKeyByLookup(lookup))
      throw new ApiError('already_exists', 'That secret is in use.', 'secret');
    const key: ApiKey = {
      id: input.id ?? this.ids.prefixed('key'),
      ownerId: input.ownerId,
      name,
      scope: input.scope,
      domain,
      mailboxes,
      disabled: false,
      createdAt: this.now(),
    };
    if (this.store.directory.getKey(key.id))
      throw new ApiError('already_exists', `Key ${quoteForMessage(key.id)} already exists.`, 'id');
    this.store.directory.createKey(key, { lookup, secretHash: hashSecret(secret) });
    return { key, secret };
  }

  setKeyDisabled(id: string, disabled: boolean): ApiKey {
    if (this.store.directory.getKey(id) === undefined)
      throw new ApiError('key_not_found', `No key ${quoteForMessage(id)}.`, 'keyId');
    return this.store.directory.setKeyDisabled(id, disabled) as ApiKey;
  }

  suppress(address: string, reason: string | undefined): Suppression {
    const normalized = requireText(address, 'address', 254).toLowerCase();
    if (!isValidAddress(normalized))
      throw new ApiError(
        'invalid_address',
        `${quoteForMessage(address)} is not an email address.`,
        'address',
      );
    return this.store.directory.addSuppression({
      address: normalized,
      reason: reason === undefined ? 'added by hand' : requireText(reason, 'reason', 200),
      createdAt: this.now(),
    });
  }

  unsuppress(address: string): void {
    if (!this.store.directory.removeSuppression(address.toLowerCase())) {
      throw new ApiError('not_found', `${quoteForMessage(address)} is not suppressed.`, 'address');
    }
  }

  /** Every owner, oldest first (the dashboard's user list). */
  owners(): Owner[] {
    return this.store.directory.listOwners();
  }

  /** The owner's granted mailboxes, ordered by address; 404 `owner_not_found` for no such owner. */
  grantsOf(ownerId: string): Mailbox[] {
    this.owner(ownerId);
    return this.store.directory.grantedMailboxes(ownerId);
  }

  /** Every domain name, ordered by name. */
  domains(): string[] {
    return this.store.directory.listDomains();
  }

  /**
   * Creates a domain with no mailboxes. Its name follows the domain part of D-11 (labels of
   * letters, digits and hyphens, at least one dot), so every domain created here can hold
   * mailboxes; it is stored lower case.
   */
  createDomain(input: unknown): string {
    const name = requireText(input, 'name', 252).toLowerCase();
    if (!isValidAddress(`x@${name}`)) {
      throw new ApiError(
        'invalid_field',
        `${quoteForMessage(name)} is not a domain name (labels of letters, digits and hyphens, with at least one dot).`,
        'name',
      );
    }
    if (this.store.directory.hasDomain(name)) {
      throw new ApiError(
        'already_exists',
        `Domain ${quoteForMessage(name)} already exists.`,
        'name',
      );
    }
    this.store.directory.ensureDomain(name);
    return name;
  }

  /** Every mailbox, granted or not, ordered by address. */
  mailboxes(): Mailbox[] {
    return this.store.directory.listMailboxes();
  }

  /** Every API key, oldest first; never a secret (only its hash is stored, §2.1). */
  keys(): ApiKey[] {
    return this.store.directory.listKeys();
  }

  /** Every suppressed address, ordered by address. */
  suppressions(): Suppression[] {
    return this.store.directory.listSuppressions();
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

export function requireText(value: unknown, field: string, maxLength: number): string {
  if (value === undefined || value === null || value === '') {
    throw new ApiError('missing_field', `${field} is required.`, field);
  }
  if (typeof value !== 'string')
    throw new ApiError('invalid_field', `${field} must be a string.`, field);
  if ([...value].length > maxLength)
    throw new ApiError('invalid_field', `${field} is longer than ${maxLength} characters.`, field);
  return value;
}
