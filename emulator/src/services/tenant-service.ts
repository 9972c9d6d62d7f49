import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { domainOf, isValidAddress } from '../domain/addresses.ts';
import type { Store } from '../store/store.ts';
import type { Tenant } from '../store/tenant-store.ts';
import type { DirectoryService } from './directory-service.ts';
import type { WebhookService } from './webhook-service.ts';

/** What `POST /tenants` takes (spec/control.yaml CreateTenantRequest). */
export interface NewTenant {
  name?: string;
  /** How many mailboxes (`user1@…` to `userN@…`), 1 to 50; 2 when absent. */
  mailboxes?: number;
  /** The tenant's own domain; a fresh `t<random>.mailtwin.test` when absent. */
  domain?: string;
  /** A webhook following the owner (§2.5), e.g. to a receiver the test runs. */
  webhook?: { url: string };
}

export interface IssuedKey {
  id: string;
  secret: string;
}

/** A new tenant with every secret it was given; the only time they are shown (§2.1, §2.5). */
export interface CreatedTenant {
  tenant: Tenant;
  mailboxes: string[];
  keys: {
    followOwner: IssuedKey;
    oneDomain: IssuedKey & { domain: string };
    selectedMailbox: IssuedKey & { mailboxes: string[] };
  };
  webhook: { id: string; url: string; secret: string } | null;
}

export const MAX_TENANT_MAILBOXES = 50;

/**
 * Tenants (issue 30 item 1, D-70): one call makes a private world, one call removes it. A
 * tenant is an ordinary owner, mailboxes, keys and webhook, made through the directory's and
 * webhooks' own rules, on a domain no other world has; what isolates it is that its keys reach
 * only its mailboxes (§5 rule 3), its webhook only their mail (§6.1), and mail between worlds
 * goes through the outbox (send-service's `worldOf`).
 */
export class TenantService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly directory: DirectoryService,
    private readonly webhooks: WebhookService,
  ) {}

  create(input: NewTenant): CreatedTenant {
    const count = input.mailboxes ?? 2;
    if (!Number.isInteger(count) || count < 1 || count > MAX_TENANT_MAILBOXES) {
      throw new ApiError(
        'invalid_field',
        `mailboxes must be an integer from 1 to ${MAX_TENANT_MAILBOXES}.`,
        'mailboxes',
      );
    }
    const domain = (input.domain ?? `t${this.ids.secret(12)}.mailtwin.test`).toLowerCase();
    if (!isValidAddress(`x@${domain}`) || domainOf(`x@${domain}`) !== domain) {
      throw new ApiError(
        'invalid_field',
        `${quoteForMessage(domain)} is not a domain name (labels of letters, digits and hyphens, with at least one dot).`,
        'domain',
      );
    }
    return this.store.transaction(() => {
      if (this.store.directory.hasDomain(domain)) {
        throw new ApiError(
          'already_exists',
          `Domain ${quoteForMessage(domain)} already exists; a tenant's domain is its own.`,
          'domain',
        );
      }
      const name = input.name ?? 'tenant';
      const owner = this.directory.createOwner({ name });
      const mailboxes: string[] = [];
      for (let i = 1; i <= count; i++) {
        const { address } = this.directory.createMailbox({
          address: `user${i}@${domain}`,
          displayName: `User ${i}`,
        });
        this.directory.grant(owner.id, address);
        mailboxes.push(address);
      }
      const key = (scope: 'follow-owner' | 'one-domain' | 'selected-mailbox') => {
        const { key, secret } = this.directory.createKey({
          ownerId: owner.id,
          name: `${scope} key`,
          scope,
          ...(scope === 'one-domain' ? { domain } : {}),
          ...(scope === 'selected-mailbox' ? { mailboxes: mailboxes.slice(0, 1) } : {}),
        });
        return { id: key.id, secret };
      };
      const keys = {
        followOwner: key('follow-owner'),
        oneDomain: { ...key('one-domain'), domain },
        selectedMailbox: { ...key('selected-mailbox'), mailboxes: mailboxes.slice(0, 1) },
      };
      let webhook: CreatedTenant['webhook'] = null;
      if (input.webhook !== undefined) {
        const made = this.webhooks.create({
          ownerId: owner.id,
          url: input.webhook.url,
          scope: 'follow-owner',
        });
        webhook = { id: made.webhook.id, url: made.webhook.url, secret: made.secret };
      }
      const tenant = this.store.tenants.add({
        id: this.ids.prefixed('tnt'),
        name,
        ownerId: owner.id,
        domain,
        createdAt: this.clock.now().toISOString(),
      });
      return { tenant, mailboxes, keys, webhook };
    });
  }

  get(id: string): Tenant {
    const tenant = this.store.tenants.get(id);
    if (tenant === undefined)
      throw new ApiError('tenant_not_found', `No tenant ${quoteForMessage(id)}.`, 'tenantId');
    return tenant;
  }

  list(): Tenant[] {
    return this.store.tenants.list();
  }

  /** The tenant's mailboxes, ordered by address. */
  mailboxesOf(tenant: Tenant): string[] {
    return this.directory.grantsOf(tenant.ownerId).map((m) => m.address);
  }

  /** Removes the tenant and everything it made (tenant-store.ts lists what). */
  delete(id: string): void {
    if (!this.store.tenants.delete(id))
      throw new ApiError('tenant_not_found', `No tenant ${quoteForMessage(id)}.`, 'tenantId');
  }
}
