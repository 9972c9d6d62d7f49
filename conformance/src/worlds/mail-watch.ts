/**
 * How a check sees "its" mail in an API world, where the mailboxes are the target's own
 * (`--mailbox`), hold mail from before the run, and mail takes time to arrive.
 *
 * At the start the watch notes what each mailbox already lists (the newest page of each
 * folder it looks at). From then on an email is new when it was not listed then and was
 * received no earlier than the newest email listed then, so mail that a deletion brings up
 * from an older page is never taken for new. Every send, reply and forward the check makes is
 * recorded: its sent copy, and one delivery awaited in each of the watched mailboxes among its
 * recipients, which reads wait for (up to `--delivery-timeout`) before they list. When the
 * check ends, every new email that is the check's own (a sent copy, or mail from one of the
 * watched mailboxes) is deleted, so the mailboxes are left as they were found.
 *
 * Checks that run side by side (check-runner/check.ts, `concurrent`) share the mailboxes: each
 * tags the subject of what it sends (worlds/claims.ts), and the watch of one never takes mail
 * carrying another's tag for new, never awaits it and never deletes it.
 */
import type { ApiClient, ApiResponse } from '../client/client.ts';
import { waitingOnTarget } from '../client/waiting.ts';
import { carriesOtherTag } from './claims.ts';

/** An email as a listing shows it, with what the watch reads. */
export interface ListedEmail {
  id: string;
  mailbox: string;
  folder: string;
  receivedAt: string;
  from: { address: string; name: string | null };
  subject: string;
  [field: string]: unknown;
}

/**
 * Folders listed to find mail: no filter (whatever the target lists by default), the two
 * folders §3.1 names, and D-5's sent, archive and spam (a target without one refuses the
 * filter, which the watch ignores).
 */
const FOLDERS = [undefined, 'inbox', 'trash', 'sent', 'archive', 'spam'] as const;

/** The writes that make mail (§4.3, §4.7, §4.8), by path under `{base_url}`. */
const MAIL_WRITES = /^\/emails\/(send|[^/]+\/(reply|forward))$/;

/** Waits between two listings while mail is awaited: the first, doubling up to the last. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 250;

/** Deletes the clean-up sends at once. */
const DELETES_AT_ONCE = 6;

/** Pages of one folder a listing reads at most: 1,000 emails newer than the check's start. */
const MAX_PAGES = 10;

export class MailWatch {
  private readonly before = new Map<string, { ids: Set<string>; newest: number }>();
  private readonly created = new Set<string>();
  private readonly awaited = new Map<string, number>();
  /** Copies seen arriving, by mailbox: still counted once the check deletes or moves them. */
  private readonly arrived = new Map<string, Set<string>>();

  constructor(
    private readonly api: ApiClient,
    private readonly apiKey: string,
    readonly mailboxes: readonly string[],
    private readonly timeoutMs: number,
    /**
     * Whether reads and the clean-up await the copies the check's writes send to the watched
     * mailboxes. A check that awaits its own copies (the stateful model, which may delete one
     * before this watch ever lists it) says no: the clean-up would otherwise wait out
     * `--delivery-timeout` for a copy that is already gone.
     */
    private readonly awaitCopies = true,
    /**
     * The check's tag when it runs side by side with others (worlds/claims.ts): mail carrying
     * another check's tag in its subject is theirs, never new to this watch.
     */
    private readonly tag?: string,
  ) {
    // Every send, reply and forward through the check's client, whatever the check does with
    // the answer (a write answered outside the contract throws before the check sees it).
    api.onWriteAnswered((answer) => {
      if (answer.method === 'POST' && MAIL_WRITES.test(answer.path))
        this.recordAnswer(answer.status, answer.text);
    });
  }

  /** Notes what each mailbox lists before the check writes anything. */
  async start(): Promise<void> {
    for (const mailbox of this.mailboxes) {
      const listed = await this.listAll(mailbox, Number.POSITIVE_INFINITY);
      this.before.set(mailbox, {
        ids: new Set(listed.map((email) => email.id)),
        newest: Math.max(0, ...listed.map((email) => Date.parse(email.receivedAt) || 0)),
      });
    }
  }

  /**
   * Records a send, reply or forward (only those: a PATCH also answers with an email): when
   * carried out (a 2xx with an email in its body), its sent copy is the check's, and each
   * watched mailbox among its recipients awaits a copy.
   */
  recordWrite(response: ApiResponse): void {
    this.recordAnswer(response.status, response.text);
  }

  private recordAnswer(status: number, text: string): void {
    if (status < 200 || status > 299) return;
    let sent: { id?: unknown; to?: unknown; cc?: unknown; bcc?: unknown };
    try {
      sent = JSON.parse(text) as typeof sent;
    } catch {
      return;
    }
    if (typeof sent?.id !== 'string') return;
    // An answer naming an email already made (a deduplicating target answering an identical
    // request again) brings no new copy: awaiting one would wait out --delivery-timeout.
    if (this.created.has(sent.id)) return;
    this.created.add(sent.id);
    if (!this.awaitCopies) return;
    const recipients = [sent.to, sent.cc, sent.bcc]
      .flatMap((list) => (Array.isArray(list) ? list : []))
      .map((entry) => String((entry as { address?: unknown })?.address ?? '').toLowerCase());
    for (const mailbox of this.mailboxes) {
      const copies = recipients.filter((address) => address === mailbox.toLowerCase()).length;
      if (copies > 0) this.awaited.set(mailbox, (this.awaited.get(mailbox) ?? 0) + 1);
    }
  }

  /** Whether the check made this email itself (a sent copy of one of its writes). */
  isCreated(id: string): boolean {
    return this.created.has(id);
  }

  /**
   * The new emails of `mailbox` (of `folder` when given), once every copy awaited there has
   * arrived or `--delivery-timeout` has passed (the check then judges what is there).
   */
  async newEmails(mailbox: string, folder?: string): Promise<ListedEmail[]> {
    await this.settle(mailbox);
    return this.newIn(mailbox, folder);
  }

  /** Deletes every new email that is the check's own, after awaiting what is still on its way. */
  async removeAll(): Promise<void> {
    for (const mailbox of this.mailboxes) {
      await this.settle(mailbox);
      const own = (await this.newIn(mailbox)).filter(
        (email) =>
          this.created.has(email.id) ||
          this.mailboxes.some((m) => m.toLowerCase() === email.from.address.toLowerCase()),
      );
      // A few at a time: each delete waits on the target, none on another.
      const queue = [...own];
      const lane = async () => {
        for (let email = queue.shift(); email !== undefined; email = queue.shift())
          await this.api.request({
            method: 'DELETE',
            path: `/emails/${encodeURIComponent(email.id)}`,
            apiKey: this.apiKey,
          });
      };
      await Promise.all(Array.from({ length: Math.min(DELETES_AT_ONCE, queue.length) }, lane));
    }
  }

  private async settle(mailbox: string): Promise<void> {
    const awaited = this.awaited.get(mailbox) ?? 0;
    if (awaited === 0) return;
    await waitingOnTarget(() => this.awaitArrivals(mailbox, awaited));
  }

  private async awaitArrivals(mailbox: string, awaited: number): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    let wait = FIRST_POLL_MS;
    const seen = this.arrived.get(mailbox) ?? new Set<string>();
    this.arrived.set(mailbox, seen);
    for (;;) {
      for (const email of await this.newIn(mailbox))
        if (!this.created.has(email.id)) seen.add(email.id);
      if (seen.size >= awaited || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }

  private async newIn(mailbox: string, folder?: string): Promise<ListedEmail[]> {
    const before = this.before.get(mailbox) ?? { ids: new Set<string>(), newest: 0 };
    const listed =
      folder === undefined
        ? await this.listAll(mailbox, before.newest)
        : await this.list(mailbox, folder, before.newest);
    return listed.filter(
      (email) =>
        !before.ids.has(email.id) &&
        (Date.parse(email.receivedAt) || 0) >= before.newest &&
        !this.othersMail(email),
    );
  }

  /** Mail another check running side by side made: tagged with its tag, not made here. */
  private othersMail(email: ListedEmail): boolean {
    return (
      this.tag !== undefined &&
      !this.created.has(email.id) &&
      carriesOtherTag(String(email.subject ?? ''), this.tag)
    );
  }

  /** Every folder the watch looks at, each email once, back to `since` (see {@link list}). */
  private async listAll(mailbox: string, since: number): Promise<ListedEmail[]> {
    const byId = new Map<string, ListedEmail>();
    for (const folder of FOLDERS)
      for (const email of await this.list(mailbox, folder, since)) byId.set(email.id, email);
    return [...byId.values()];
  }

  /**
   * The newest emails of a folder (or of the unfiltered list): the first page, and further
   * pages while the last one listed was received no earlier than `since` (the list is
   * newest-first, §4.2), so a check that sends more than a page of mail sees all of it.
   */
  private async list(
    mailbox: string,
    folder: string | undefined,
    since: number,
  ): Promise<ListedEmail[]> {
    const ask = (page: { limit?: number; cursor?: string }) =>
      this.api.request({
        path: '/emails',
        query: { mailbox, ...(folder === undefined ? {} : { folder }), ...page },
        apiKey: this.apiKey,
      });
    // 100 a page is D-15's bound; a target with a lower one gets its default page.
    let limit: { limit?: number } = { limit: 100 };
    let response = await ask(limit);
    if (response.status === 400 && response.json<{ field?: string }>().field === 'limit') {
      limit = {};
      response = await ask(limit);
    }
    const emails: ListedEmail[] = [];
    for (let page = 0; response.status === 200 && page < MAX_PAGES; page += 1) {
      const body = response.json<{ emails?: ListedEmail[]; nextCursor?: string | null }>();
      const listed = body.emails ?? [];
      emails.push(...listed);
      const last = listed.at(-1);
      if (typeof body.nextCursor !== 'string' || last === undefined) break;
      if ((Date.parse(last.receivedAt) || 0) < since) break;
      response = await ask({ ...limit, cursor: body.nextCursor });
    }
    return emails;
  }
}
