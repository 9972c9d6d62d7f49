/**
 * What the mailbox commands ask of the deployment and how they take in its answers: read one
 * email, walk the run's listing, upload a file, judge a send's answer, and record a message the
 * mailbox sent to itself (its sent copy and the copy it receives, awaited in its time).
 */
import { createHash } from 'node:crypto';
import { chargeTo, expectAt } from '../contract/charge.ts';
import { waitingOnTarget } from '../client/waiting.ts';
import { expectSuccess } from './statuses.ts';
import { decide, learnFolder, type MailboxModel, type Real } from './mailbox-model.ts';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface Detail {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  attachments: { id: string; size: number }[];
}

export interface Listed {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  receivedAt: string;
}

export async function detail(real: Real, id: string): Promise<Detail> {
  const response = await real.api.request({ path: `/emails/${id}`, apiKey: real.apiKey });
  expectSuccess('4.4-R1', response.status, `GET /emails/${id}`);
  return response.json<Detail>();
}

/**
 * Every email of this run in the mailbox, via a whole cursor walk (§4.2). The name of a page's
 * array is not shown: the page's one array.
 */
export async function listAll(real: Real, folder?: string): Promise<Listed[]> {
  return chargeTo('4.2-R13', async () => {
    const all: Listed[] = [];
    let cursor: string | null = null;
    // A cursor given twice would walk forever (a mock answering one example page does): fail.
    const seen = new Set<string>();
    do {
      const query: Record<string, string> = { mailbox: real.mailbox, limit: '7', q: real.tag };
      if (folder !== undefined) query.folder = folder;
      if (cursor !== null) query.cursor = cursor;
      const response = await real.api.request({ path: '/emails', query, apiKey: real.apiKey });
      expectSuccess('4.2-R13', response.status, 'GET /emails');
      const page = response.json<{ nextCursor: string | null }>();
      all.push(...(Object.values(page as object).find(Array.isArray) as Listed[]));
      cursor = page.nextCursor;
      expectAt(
        '4.2-R13',
        cursor !== null && seen.has(cursor),
        `GET /emails answered nextCursor ${cursor} a second time; the walk would never end`,
      ).toBe(false);
      if (cursor !== null) seen.add(cursor);
    } while (cursor !== null);
    return all;
  });
}

/** Uploads `bytes` (§4.9): the upload id. */
export async function upload(model: MailboxModel, real: Real, bytes: Uint8Array): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'data.bin');
  const uploaded = await real.api.request({
    method: 'POST',
    path: '/attachments',
    body: form,
    apiKey: real.apiKey,
  });
  // 201 is ours (D-44, not asserted): any 2xx with the attachment object.
  expectSuccess('4.9-R2', uploaded.status, 'POST /attachments');
  const id = uploaded.json<{ id: string }>().id;
  model.uploads.set(id, sha256(bytes));
  return id;
}

/** The answer of send, reply or forward: a 2xx (D-21: 201) with the sent copy (D-21). */
export function sentCopy(
  model: MailboxModel,
  ruleId: string,
  response: { status: number; json<T>(): T },
  what: string,
): Detail {
  expectSuccess(ruleId, response.status, what);
  const status = response.status;
  decide(model, () => expectAt('D-21', status, `${what} status`).toBe(201));
  // The answer's shape is not shown (§4.3): ours is the sent copy's detail (D-21).
  const sent = response.json<Detail>();
  expectAt('D-21', typeof sent?.id, `${what} answers the sent copy, with its id`).toBe('string');
  return sent;
}

/**
 * A message the mailbox sent to itself is two emails: the sent copy and one new inbox copy,
 * found as the one email of its subject not yet in the model. Where they land and their flags
 * are ours (D-48: the sent copy read in sent, the copy unread in inbox): the model takes what the
 * target shows, and learns the sent copy's folder as one PATCH may name. A request identical
 * to an earlier one (the same subject and body, no new upload) may instead be answered with
 * the email it made then: §4.3 rule 5, §4.7 and §4.8 withhold an idempotency guarantee, they
 * do not demand a duplicate. Then nothing new may appear.
 */
export async function recordSentToSelf(
  model: MailboxModel,
  real: Real,
  sentId: string,
  subject: string,
  attachments: readonly string[],
  expectation: string,
): Promise<void> {
  expectAt(
    '4.3-R5',
    model.deleted.includes(sentId),
    `the answer names ${sentId}, an email deleted before: an answer must be a sent copy that exists`,
  ).toBe(false);
  const known = model.emails.get(sentId);
  if (known !== undefined) {
    expectAt(
      '4.3-R5',
      known.subject,
      `the answer names ${sentId}, an email made before: only the same message may be answered again`,
    ).toBe(subject);
    const made = (await listAll(real)).filter(
      (e) => e.subject === subject && !model.emails.has(e.id),
    );
    expectAt('4.3-R5', made.length, 'an answer naming an earlier email adds no copy').toBe(0);
    return;
  }
  const copy = await detail(real, sentId);
  expectAt('2.3-R2', copy.subject, `subject of the sent copy ${sentId}`).toBe(subject);
  learnFolder(model, copy.folder);
  decide(model, () =>
    expectAt('D-48', { folder: copy.folder, read: copy.read }, `the sent copy ${sentId}`).toEqual({
      folder: 'sent',
      read: true,
    }),
  );
  model.emails.set(sentId, {
    folder: copy.folder,
    read: copy.read,
    starred: copy.starred,
    subject,
    attachments: [...attachments],
  });
  // D-48: a mailbox of the deployment among the recipients gets its own copy, in its time.
  const copies = await arrived(real, (e) => e.subject === subject && !model.emails.has(e.id));
  expectAt('D-48', copies.length, expectation).toBe(1);
  const received = copies[0]!;
  learnFolder(model, received.folder);
  decide(model, () =>
    expectAt(
      'D-48',
      { folder: received.folder, read: received.read },
      `the received copy ${received.id}`,
    ).toEqual({ folder: 'inbox', read: false }),
  );
  model.emails.set(received.id, {
    folder: received.folder,
    read: received.read,
    starred: received.starred,
    subject,
    attachments: [...attachments],
  });
}

/** How far the target's clock may be behind this machine's, for the pages the watcher reads. */
const CLOCK_MARGIN_MS = 2_000;

/**
 * The listed emails `wanted` picks, listing again (after 100 ms, then every 250 ms) until one
 * is there or `deliveryTimeoutMs` has passed; with `real.arrivals`, one watcher of the mailbox
 * lists for every sequence awaiting mail at once.
 */
export async function arrived(
  real: Real,
  wanted: (email: Awaited<ReturnType<typeof listAll>>[number]) => boolean,
) {
  const sentAt = Date.now();
  const deadline = sentAt + (real.deliveryTimeoutMs ?? 0);
  const first = (await listAll(real)).filter(wanted);
  if (first.length > 0 || Date.now() >= deadline) return first;
  // The watcher reads the newest page, and older pages only while they are newer than the
  // send (less a margin for the target's clock): a copy received since is on them.
  if (real.arrivals !== undefined)
    return real.arrivals.awaitEmails(wanted, sentAt - CLOCK_MARGIN_MS);
  return waitingOnTarget(async () => {
    for (let wait = 100; ; wait = Math.min(wait * 2, 250)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const found = (await listAll(real)).filter(wanted);
      if (found.length > 0 || Date.now() >= deadline) return found;
    }
  });
}
