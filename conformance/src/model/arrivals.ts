/**
 * One watcher of a mailbox for every model sequence awaiting mail in it (issue 31 item 3):
 * sequences run side by side (check-runner/property.ts) each await the copy their send delivers, and
 * one listing of the mailbox's newest mail answers them all, instead of each walking its own
 * search every 250 ms. Each sequence recognises its copy by what it tagged (its subject carries
 * the sequence's own word), never by order or time.
 */
import { chargeTo } from '../contract/charge.ts';
import type { ApiClient } from '../client/client.ts';
import { waitingOnTarget } from '../client/waiting.ts';
import { expectSuccess } from './statuses.ts';

/** An email as the listing shows it, with what the model reads. */
export interface ArrivedEmail {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  receivedAt: string;
}

interface Waiter {
  wanted: (email: ArrivedEmail) => boolean;
  /** No listed email received before this (ms since the epoch) can be the one awaited. */
  since: number;
  deadline: number;
  settle: (found: ArrivedEmail[] | Error) => void;
}

/** Waits between two listings while mail is awaited: the first, doubling up to the last. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 250;
/** Pages of 100 a listing reads at most, while they are newer than the oldest wait. */
const MAX_PAGES = 10;

export class MailboxArrivals {
  private readonly waiters = new Set<Waiter>();
  private polling = false;
  private limit: { limit?: string } = { limit: '100' };

  constructor(
    private readonly api: ApiClient,
    private readonly apiKey: string,
    private readonly mailbox: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The emails of the mailbox `wanted` picks, once at least one is listed, or none once the
   * delivery time-out has passed (the caller then judges what is there). `since` is when the
   * awaited mail was sent, as this machine's clock tells it, less a margin for the target's.
   */
  async awaitEmails(
    wanted: (email: ArrivedEmail) => boolean,
    since: number,
  ): Promise<ArrivedEmail[]> {
    return waitingOnTarget(async () => {
      const found = await new Promise<ArrivedEmail[] | Error>((settle) => {
        this.waiters.add({ wanted, since, deadline: Date.now() + this.timeoutMs, settle });
        void this.poll();
      });
      if (found instanceof Error) throw found;
      return found;
    });
  }

  /** Lists the newest mail while anyone waits, and settles each wait its mail has answered. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (
        let wait = FIRST_POLL_MS;
        this.waiters.size > 0;
        wait = Math.min(wait * 2, MAX_POLL_MS)
      ) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        let listed: ArrivedEmail[];
        try {
          listed = await this.newest(Math.min(...[...this.waiters].map((w) => w.since)));
        } catch (error) {
          for (const waiter of this.waiters) waiter.settle(error as Error);
          this.waiters.clear();
          return;
        }
        const now = Date.now();
        for (const waiter of [...this.waiters]) {
          const found = listed.filter(waiter.wanted);
          if (found.length === 0 && now < waiter.deadline) continue;
          this.waiters.delete(waiter);
          waiter.settle(found);
        }
      }
    } finally {
      this.polling = false;
    }
  }

  /**
   * The mailbox's mail, newest first (§4.2), page by page while the last one listed was
   * received no earlier than `since`; a refused listing fails as the model's own would.
   */
  private async newest(since: number): Promise<ArrivedEmail[]> {
    return chargeTo('4.2-R13', async () => {
      const emails: ArrivedEmail[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const query: Record<string, string> = { mailbox: this.mailbox, ...this.limit };
        if (cursor !== null) query.cursor = cursor;
        let response = await this.api.request({ path: '/emails', query, apiKey: this.apiKey });
        // 100 a page is D-15's bound; a target with a lower one gets its default page.
        if (response.status === 400 && response.json<{ field?: string }>().field === 'limit') {
          this.limit = {};
          delete query.limit;
          response = await this.api.request({ path: '/emails', query, apiKey: this.apiKey });
        }
        expectSuccess('4.2-R13', response.status, 'GET /emails');
        const body = response.json<{ nextCursor?: string | null }>();
        const listed = (Object.values(body as object).find(Array.isArray) ?? []) as ArrivedEmail[];
        emails.push(...listed);
        cursor = typeof body.nextCursor === 'string' ? body.nextCursor : null;
        const last = listed.at(-1);
        if (cursor === null || last === undefined || (Date.parse(last.receivedAt) || 0) < since)
          break;
      }
      return emails;
    });
  }
}
