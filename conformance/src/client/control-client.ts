import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiResponse, RequestOptions } from './client.ts';
import { recordMadeSecret } from './exchange.ts';
import type { Target } from './target.ts';

export type Scope = 'follow-owner' | 'one-domain' | 'selected-mailbox';

export interface CreatedKey {
  id: string;
  secret: string;
  scope: Scope;
}

/** A new inbound email as the control plane takes it (spec/control.yaml, POST /inbound). */
export interface InboundEmail {
  mailbox: string;
  from: string;
  to?: string[];
  cc?: string[];
  subject?: string;
  text?: string;
  html?: string;
  receivedAt?: string;
  folder?: string;
  read?: boolean;
  starred?: boolean;
  attachments?: { name: string; contentType?: string; contentBase64: string }[];
}

/**
 * The control plane (the dashboard's stand-in, spec/control.yaml), used by checks to build
 * the world they need: owners, mailboxes, grants, keys and inbound mail. Every call is logged
 * with the check's other exchanges, so a failure shows how its world was built.
 */
export class ControlClient {
  constructor(
    private readonly api: ApiClient,
    private readonly control: NonNullable<Target['control']>,
  ) {}

  private async call(
    method: string,
    path: string,
    options: Omit<RequestOptions, 'path'> = {},
    expected = [200, 201, 204],
  ): Promise<ApiResponse> {
    const response = await this.api.request({
      ...options,
      method,
      path: `${this.control.baseUrl}${path}`,
      absolute: true,
      headers: { ...options.headers, Authorization: `Bearer ${this.control.token}` },
    });
    if (!expected.includes(response.status)) {
      throw new Error(
        `control plane ${method} ${path} answered ${response.status}: ${response.text.slice(0, 300)}`,
      );
    }
    return response;
  }

  async createOwner(name: string): Promise<string> {
    return (await this.call('POST', '/owners', { json: { name } })).json<{ id: string }>().id;
  }

  async setOwnerDisabled(ownerId: string, disabled: boolean): Promise<void> {
    await this.call(
      'POST',
      `/owners/${encodeURIComponent(ownerId)}/${disabled ? 'disable' : 'enable'}`,
    );
  }

  async createMailbox(address: string, displayName?: string): Promise<void> {
    await this.call('POST', '/mailboxes', {
      json: displayName === undefined ? { address } : { address, displayName },
    });
  }

  async grant(ownerId: string, address: string): Promise<void> {
    await this.call(
      'PUT',
      `/owners/${encodeURIComponent(ownerId)}/grants/${encodeURIComponent(address)}`,
    );
  }

  async revoke(ownerId: string, address: string): Promise<void> {
    await this.call(
      'DELETE',
      `/owners/${encodeURIComponent(ownerId)}/grants/${encodeURIComponent(address)}`,
    );
  }

  async createKey(
    ownerId: string,
    scope: Scope,
    options: { domain?: string; mailboxes?: string[]; name?: string } = {},
  ): Promise<CreatedKey> {
    const body = {
      ownerId,
      name: options.name ?? `conformance ${scope}`,
      scope,
      ...(options.domain === undefined ? {} : { domain: options.domain }),
      ...(options.mailboxes === undefined ? {} : { mailboxes: options.mailboxes }),
    };
    const response = await this.call('POST', '/keys', { json: body });
    const created = response.json<{ id: string; secret: string }>();
    // A replay of a request sending this key shows the call that made it (exchange.ts).
    recordMadeSecret(this.api.log, response.exchange, created.secret);
    return { id: created.id, secret: created.secret, scope };
  }

  async setKeyDisabled(keyId: string, disabled: boolean): Promise<void> {
    await this.call(
      'POST',
      `/keys/${encodeURIComponent(keyId)}/${disabled ? 'disable' : 'enable'}`,
    );
  }

  /** Delivers an inbound email; returns its id in the mailbox. */
  async inject(email: InboundEmail): Promise<{ id: string; receivedAt: string }> {
    return (await this.call('POST', '/inbound', { json: email })).json<{
      id: string;
      receivedAt: string;
    }>();
  }

  async advanceClock(ms: number): Promise<string> {
    return (await this.call('POST', '/clock', { json: { advanceMs: ms } })).json<{ now: string }>()
      .now;
  }

  async now(): Promise<string> {
    return (await this.call('GET', '/clock')).json<{ now: string }>().now;
  }

  /** Suppresses an address (§4.3 rule 4): mail to it then fails with 422 (D-25). */
  async suppress(address: string, reason?: string): Promise<void> {
    await this.call('POST', '/suppressions', {
      json: reason === undefined ? { address } : { address, reason },
    });
  }

  /** Lifts a suppression. */
  async unsuppress(address: string): Promise<void> {
    await this.call('DELETE', `/suppressions/${encodeURIComponent(address)}`);
  }

  /** Mail captured for addresses that are not mailboxes of the target, newest first. */
  async outbox(): Promise<OutboxEntry[]> {
    return (await this.call('GET', '/outbox')).json<OutboxEntry[]>();
  }

  /** The raw RFC 822 bytes of one captured message. */
  async outboxEml(id: string): Promise<Uint8Array> {
    return (await this.call('GET', `/outbox/${encodeURIComponent(id)}/eml`)).bytes;
  }

  async clearOutbox(): Promise<void> {
    await this.call('DELETE', '/outbox');
  }

  /** Arms a fault for send, reply or forward (D-47). */
  async armFault(fault: ArmFault): Promise<void> {
    await this.call('POST', '/faults', { json: fault });
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }

  /** §2.5: a webhook of an owner; returns its id and its whsec_ secret (shown once). */
  async createWebhook(
    ownerId: string,
    url: string,
    scope: Scope,
    options: { domain?: string; mailboxes?: string[] } = {},
  ): Promise<{ id: string; secret: string }> {
    const body = { ownerId, url, scope, ...options };
    const response = await this.call('POST', '/webhooks', { json: body });
    const created = response.json<{ id: string; secret: string }>();
    recordMadeSecret(this.api.log, response.exchange, created.secret, { stem: 'WEBHOOK_SECRET' });
    return created;
  }

  async webhook(
    id: string,
  ): Promise<{ id: string; status: 'active' | 'paused'; consecutiveFailures: number }> {
    return (await this.call('GET', `/webhooks/${encodeURIComponent(id)}`)).json();
  }

  async enableWebhook(id: string): Promise<void> {
    await this.call('POST', `/webhooks/${encodeURIComponent(id)}/enable`);
  }

  async testWebhook(
    id: string,
  ): Promise<{ ok: boolean; statusCode: number | null; error: string | null }> {
    return (await this.call('POST', `/webhooks/${encodeURIComponent(id)}/test`)).json();
  }

  async deliveries(id: string): Promise<
    {
      event: string;
      emailId: string | null;
      status: string;
      nextAttemptAt: string | null;
      attempts: {
        number: number;
        at: string;
        statusCode: number | null;
        error: string | null;
        latencyMs: number;
      }[];
    }[]
  > {
    return (await this.call('GET', `/webhooks/${encodeURIComponent(id)}/deliveries`)).json();
  }

  /** Rejected webhook creation: the status and the error body. */
  async refuseWebhook(ownerId: string, url: string): Promise<{ status: number; code: string }> {
    const response = await this.call(
      'POST',
      '/webhooks',
      { json: { ownerId, url, scope: 'follow-owner' } },
      [201, 400],
    );
    return { status: response.status, code: response.json<{ code?: string }>().code ?? '' };
  }
}

/** A message captured instead of sent (spec/control.yaml, OutboxEntry). */
export interface OutboxEntry {
  id: string;
  sentEmailId: string | null;
  from: string;
  /** Envelope recipients outside the target, lower case. */
  recipients: string[];
  subject: string;
  messageId: string;
  size: number;
  createdAt: string;
}

/** The body of `POST /faults` (spec/control.yaml, ArmFaultRequest). */
export interface ArmFault {
  operations?: ('send' | 'reply' | 'forward')[];
  count?: number;
  mode: 'error' | 'timeout-after-commit';
  status?: 500 | 502 | 503 | 504;
}

/** A world of its own for one check: fresh owner, domain and mailboxes, named at random. */
export interface Tenant {
  ownerId: string;
  domain: string;
  /** Mailbox addresses, in creation order. */
  mailboxes: string[];
  /** A follow-owner key of the owner. */
  key: CreatedKey;
}

export async function createTenant(
  control: ControlClient,
  mailboxCount = 1,
  domain = `t${randomBytes(5).toString('hex')}.conformance.test`,
): Promise<Tenant> {
  const ownerId = await control.createOwner(`Conformance owner ${domain}`);
  const mailboxes: string[] = [];
  for (let i = 0; i < mailboxCount; i += 1) {
    const address = `box${i}@${domain}`;
    await control.createMailbox(address, `Box ${i}`);
    await control.grant(ownerId, address);
    mailboxes.push(address);
  }
  const key = await control.createKey(ownerId, 'follow-owner');
  return { ownerId, domain, mailboxes, key };
}
