import type { components as Control } from '../../../spec/generated/control.d.ts';
import type { components as Api } from '../../../spec/generated/openapi.d.ts';

/** The control plane's and the API's shapes, generated from spec/control.yaml and openapi.yaml. */
export type CreatedTenant = Control['schemas']['CreatedTenant'];
export type TenantRecord = Control['schemas']['Tenant'];
export type EmailSummary = Control['schemas']['EmailSummary'];
export type EmailDetail = Api['schemas']['EmailDetail'];
export type OutboxEntry = Control['schemas']['OutboxEntry'];
export type ChaosRule = Control['schemas']['ChaosRule'];
export type ChaosRuleRequest = Control['schemas']['ChaosRuleRequest'];
export type ChaosState = Control['schemas']['ChaosState'];
export type SendEmailRequest = Api['schemas']['SendEmailRequest'];
export type ClockState = Control['schemas']['Clock'];

/** Every filter of `GET /emails` (§4.2) but the mailbox, as strings or booleans. */
export interface MailFilter {
  folder?: 'inbox' | 'sent' | 'archive' | 'spam' | 'trash';
  q?: string;
  from?: string;
  subject?: string;
  read?: boolean;
  starred?: boolean;
  dateFrom?: string;
  dateTo?: string;
}

/** The outbox's filters (D-71). */
export interface OutboxFilter {
  tenant?: string;
  to?: string;
  from?: string;
  subject?: string;
  text?: string;
}

/** Options of `POST /tenants` (D-70). */
export interface TenantOptions {
  name?: string;
  mailboxes?: number;
  domain?: string;
  webhook?: { url: string };
}

/** An Error answer (§7) of the emulator, thrown by every call of the kit. */
export class MailtwinError extends Error {
  override name = 'MailtwinError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** Where a running emulator is and the token of its control plane. */
export interface MailtwinEndpoint {
  origin: string;
  controlToken: string;
}

const query = (params: object) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
};

/**
 * A client of one emulator's control plane (spec/control.yaml): tenants, waits, the outbox, the
 * clock and chaos. Every failure throws a MailtwinError with the answer's code.
 */
export class Mailtwin {
  readonly controlUrl: string;
  readonly baseUrl: string;

  constructor(readonly endpoint: MailtwinEndpoint) {
    this.controlUrl = `${endpoint.origin}/_mailtwin/v1`;
    this.baseUrl = `${endpoint.origin}/openapi/v1`;
  }

  /** One control-plane call; the JSON answer, or undefined for 204. */
  async control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.endpoint.controlToken}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answerOf<T>(response);
  }

  /** A private world: an owner, mailboxes on its own domain, a key of each scope (D-70). */
  async createTenant(options: TenantOptions = {}): Promise<Tenant> {
    return new Tenant(this, await this.control<CreatedTenant>('POST', '/tenants', options));
  }

  /** Removes a tenant and all it made. */
  async deleteTenant(id: string): Promise<void> {
    await this.control('DELETE', `/tenants/${encodeURIComponent(id)}`);
  }

  /**
   * Resolves with the newest matching emails of `mailbox` as soon as there is one (D-71), woken
   * by the emulator, never by polling; throws MailtwinError `wait_timeout` after `timeoutMs`.
   */
  async waitForMail(
    mailbox: string,
    filter: MailFilter = {},
    { timeoutMs = 5_000 }: { timeoutMs?: number } = {},
  ): Promise<EmailSummary[]> {
    const page = await this.control<{ emails: EmailSummary[] }>(
      'GET',
      `/wait/emails${query({ mailbox, ...filter, timeoutMs })}`,
    );
    return page.emails;
  }

  /** Resolves with the matching captured messages as soon as there is one (D-71). */
  waitForOutbox(
    filter: OutboxFilter,
    { timeoutMs = 5_000 }: { timeoutMs?: number } = {},
  ): Promise<OutboxEntry[]> {
    return this.control('GET', `/wait/outbox${query({ ...filter, timeoutMs })}`);
  }

  /** One page of the outbox, newest first, and the cursor of the next (null at the end). */
  async readOutbox(
    filter: OutboxFilter = {},
    page: { limit?: number; cursor?: string } = {},
  ): Promise<{ entries: OutboxEntry[]; nextCursor: string | null }> {
    const response = await fetch(
      `${this.controlUrl}/outbox${query({ ...filter, limit: page.limit ?? 100, cursor: page.cursor })}`,
      { headers: { Authorization: `Bearer ${this.endpoint.controlToken}` } },
    );
    const link = response.headers.get('link');
    const entries = await answerOf<OutboxEntry[]>(response);
    const next = link === null ? null : /cursor=([^&>]+)/.exec(link)?.[1];
    return { entries, nextCursor: next == null ? null : decodeURIComponent(next) };
  }

  /** The raw message as it would have been sent (RFC 5322 bytes as text). */
  async readOutboxEml(outboxId: string): Promise<string> {
    const response = await fetch(`${this.controlUrl}/outbox/${encodeURIComponent(outboxId)}/eml`, {
      headers: { Authorization: `Bearer ${this.endpoint.controlToken}` },
    });
    if (!response.ok) await answerOf(response);
    return response.text();
  }

  /**
   * Moves the emulator's clock forward (never back). It is one clock for every tenant (D-70):
   * a test that moves it moves every worker's time.
   */
  advanceClock(ms: number): Promise<ClockState> {
    return this.control('POST', '/clock', { advanceMs: ms });
  }

  setClock(iso: string): Promise<ClockState> {
    return this.control('POST', '/clock', { set: iso });
  }

  /**
   * Arms seeded chaos rules (`PUT /chaos`, docs/chaos.md), replacing the last set; chaos is
   * one set for the whole emulator, not per tenant.
   */
  armChaos(rules: ChaosRuleRequest[], seed?: number): Promise<ChaosState> {
    return this.control('PUT', '/chaos', { rules, ...(seed === undefined ? {} : { seed }) });
  }

  /** The armed rules with how often each matched and fired. */
  listChaos(): Promise<ChaosState> {
    return this.control('GET', '/chaos');
  }

  async clearChaos(): Promise<void> {
    await this.control('DELETE', '/chaos');
  }
}

/** A tenant made by `createTenant`, with its secrets and helpers scoped to it. */
export class Tenant {
  readonly id: string;
  readonly domain: string;
  readonly mailboxes: string[];
  readonly baseUrl: string;
  readonly keys: CreatedTenant['keys'];
  readonly webhook: CreatedTenant['webhook'];

  constructor(
    readonly mailtwin: Mailtwin,
    readonly created: CreatedTenant,
  ) {
    this.id = created.id;
    this.domain = created.domain;
    this.mailboxes = created.mailboxes;
    this.baseUrl = created.baseUrl;
    this.keys = created.keys;
    this.webhook = created.webhook;
  }

  /** The secret of its follow-owner key, for `Authorization: Bearer`. */
  get apiKey(): string {
    return this.keys.followOwner.secret;
  }

  /** A request to the API (§4) with its follow-owner key; `path` is relative to baseUrl. */
  async api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answerOf<T>(response);
  }

  /** `POST /emails/send` from its first mailbox unless `from` says otherwise. */
  send(body: Omit<SendEmailRequest, 'from'> & { from?: string }): Promise<EmailDetail> {
    return this.api('POST', '/emails/send', { from: this.mailboxes[0], ...body });
  }

  /** Waits for mail in one of its mailboxes (the first unless `mailbox` is given). */
  waitForMail(
    filter: MailFilter & { mailbox?: string } = {},
    options: { timeoutMs?: number } = {},
  ): Promise<EmailSummary[]> {
    const { mailbox = this.mailboxes[0] as string, ...rest } = filter;
    return this.mailtwin.waitForMail(mailbox, rest, options);
  }

  /** Waits for what it sent outside its world to be captured. */
  waitForOutbox(
    filter: Omit<OutboxFilter, 'tenant'> = {},
    options: { timeoutMs?: number } = {},
  ): Promise<OutboxEntry[]> {
    return this.mailtwin.waitForOutbox({ ...filter, tenant: this.id }, options);
  }

  /** Its captured outgoing mail, newest first. */
  readOutbox(
    filter: Omit<OutboxFilter, 'tenant'> = {},
    page: { limit?: number; cursor?: string } = {},
  ): Promise<{ entries: OutboxEntry[]; nextCursor: string | null }> {
    return this.mailtwin.readOutbox({ ...filter, tenant: this.id }, page);
  }

  /** Removes it and all it made. */
  delete(): Promise<void> {
    return this.mailtwin.deleteTenant(this.id);
  }
}

async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (response.ok) return (text === '' ? undefined : JSON.parse(text)) as T;
  let body: { code?: string; message?: string; field?: string } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not the Error shape: reported by status alone
  }
  throw new MailtwinError(
    response.status,
    body.code ?? 'unexpected_answer',
    body.message ?? text.slice(0, 200),
    body.field,
  );
}
