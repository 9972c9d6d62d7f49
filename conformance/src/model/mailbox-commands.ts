import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { chargeTo, expectAt } from '../contract/charge.ts';
import type { ApiClient } from '../client/client.ts';
import { waitingOnTarget } from '../client/waiting.ts';
import { expectRefusal, expectSuccess } from './statuses.ts';

/**
 * Model-based stateful testing of one mailbox, laid out like fast-check's musicPlayer example:
 * a model much simpler than any deployment (a map of what the mailbox should hold), one command
 * per operation with `check`/`run`/`toString`, and `fc.commands` to generate sequences. After
 * every command the deployment must agree with the model.
 *
 * The model assumes only the document: folders are inbox and trash (§3.1) and those the target
 * shows (the folder its sent copies are in); ties in a listing come in any order; statuses are
 * any 2xx, a refusal any 4xx. What only our decisions fix (201, 200 for PATCH, 404, the order of
 * ties, the sent folder, Re:/Fwd:) is asserted apart, charged to its D-rule, after the sequence
 * ({@link MailboxModel.decided}), so that a deployment that decided otherwise is still checked
 * against every documented rule to the end.
 */
export interface ModelMail {
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  /** sha256 of each attachment's bytes, in order. */
  attachments: string[];
}

export interface MailboxModel {
  emails: Map<string, ModelMail>;
  /** Upload id → sha256 of its bytes. */
  uploads: Map<string, string>;
  deleted: string[];
  /** Folders a PATCH may name: inbox and trash (§3.1), then those the target showed. */
  folders: string[];
  /** Decided expectations, each charged to its D-rule: run them after the sequence. */
  decided: (() => void)[];
}

/** The folder a generated pick names among the folders known so far. */
const folderAt = (model: Readonly<MailboxModel>, pick: number) =>
  model.folders[pick % model.folders.length] as string;

/** A folder the target showed, so that PATCH and list may name it too. */
function learnFolder(model: MailboxModel, folder: unknown): void {
  if (typeof folder === 'string' && folder !== '' && !model.folders.includes(folder))
    model.folders.push(folder);
}

/** A decided expectation (its assertions charged with expectAt), checked after the sequence. */
function decide(model: MailboxModel, check: () => void): void {
  model.decided.push(check);
}

export interface Real {
  api: ApiClient;
  apiKey: string;
  mailbox: string;
  /** A unique prefix for this run's subjects, so the run finds its own mail. */
  tag: string;
  /**
   * How long a copy sent to the mailbox may take to arrive (`--delivery-timeout`): §4.3 does
   * not say delivery is instant, so the model waits for it before judging.
   */
  deliveryTimeoutMs?: number;
}

type Command = fc.AsyncCommand<MailboxModel, Real, false>;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Detail {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  attachments: { id: string; size: number }[];
}

interface Listed {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  receivedAt: string;
}

async function detail(real: Real, id: string): Promise<Detail> {
  const response = await real.api.request({ path: `/emails/${id}`, apiKey: real.apiKey });
  expectSuccess('4.4-R1', response.status, `GET /emails/${id}`);
  return response.json<Detail>();
}

/**
 * Every email of this run in the mailbox, via a whole cursor walk (§4.2). The name of a page's
 * array is not shown: the page's one array.
 */
async function listAll(real: Real, folder?: string): Promise<Listed[]> {
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
async function upload(model: MailboxModel, real: Real, bytes: Uint8Array): Promise<string> {
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
function sentCopy(
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

/** Sends from the mailbox to itself: a sent copy and, delivered locally, an inbox copy (D-48). */
class SendCommand implements Command {
  constructor(
    readonly subject: string,
    readonly attach: Uint8Array | null,
  ) {}
  check = () => true;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const attachmentIds: string[] = [];
    if (this.attach !== null) attachmentIds.push(await upload(model, real, this.attach));
    const subject = `${real.tag} ${this.subject}`;
    const response = await real.api.request({
      method: 'POST',
      path: '/emails/send',
      json: {
        from: real.mailbox,
        to: real.mailbox,
        subject,
        text: `body of ${subject}`,
        attachmentIds,
      },
      apiKey: real.apiKey,
    });
    const sent = sentCopy(model, '1-R5', response, 'POST /emails/send');
    const hashes = this.attach === null ? [] : [sha256(this.attach)];
    await recordSentToSelf(model, real, sent.id, subject, hashes, `one inbox copy of "${subject}"`);
  }
  toString = () =>
    `send(${JSON.stringify(this.subject)}${this.attach === null ? '' : `, ${this.attach.length} bytes attached`})`;
}

class ListCommand implements Command {
  folder: string | undefined;
  constructor(readonly pick: number | undefined) {}
  check = () => true;
  async run(model: MailboxModel, real: Real): Promise<void> {
    this.folder = this.pick === undefined ? undefined : folderAt(model, this.pick);
    const folder = this.folder;
    const listed = await listAll(real, folder);
    const expected = [...model.emails].filter(
      ([, m]) => folder === undefined || m.folder === folder,
    );
    expectAt(
      folder === undefined ? '4.2-R13' : '3.1-R1',
      listed.map((e) => e.id).sort(),
      `ids listed in ${folder ?? 'every folder'}`,
    ).toEqual(expected.map(([id]) => id).sort());
    for (const email of listed) {
      const m = model.emails.get(email.id)!;
      expectAt('3.1-R1', email.folder, `folder of list entry ${email.id}`).toBe(m.folder);
      expectAt('3.1-R3', email.read, `read of list entry ${email.id}`).toBe(m.read);
      expectAt('3.1-R4', email.starred, `starred of list entry ${email.id}`).toBe(m.starred);
      expectAt('2.3-R2', email.subject, `subject of list entry ${email.id}`).toBe(m.subject);
    }
    // §4.2: newest first across distinct times; ties in any order (D-17: by id, descending).
    for (let i = 1; i < listed.length; i += 1) {
      const [a, b] = [listed[i - 1]!, listed[i]!];
      expectAt(
        '4.2-R12',
        Date.parse(a.receivedAt) >= Date.parse(b.receivedAt),
        `newest first: ${a.id} (${a.receivedAt}) before ${b.id} (${b.receivedAt})`,
      ).toBe(true);
      if (a.receivedAt === b.receivedAt)
        decide(model, () =>
          expectAt('D-17', a.id > b.id, `tie: ${a.id} listed before ${b.id}`).toBe(true),
        );
    }
  }
  toString = () =>
    `list(${this.pick === undefined ? 'all' : (this.folder ?? `folder #${this.pick}`)})`;
}

class GetCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, m] = [...model.emails][this.pick % model.emails.size]!;
    const got = await detail(real, id);
    expectAt('3.1-R1', got.folder, `folder of ${id}`).toBe(m.folder);
    expectAt('3.1-R3', got.read, `read of ${id}`).toBe(m.read);
    expectAt('3.1-R4', got.starred, `starred of ${id}`).toBe(m.starred);
    expectAt('2.3-R2', got.subject, `subject of ${id}`).toBe(m.subject);
    expectAt('2.4-R5', got.attachments.length, `attachments of ${id}`).toBe(m.attachments.length);
    for (const [i, attachment] of got.attachments.entries()) {
      const bytes = await real.api.request({
        path: `/attachments/${attachment.id}`,
        apiKey: real.apiKey,
      });
      expectSuccess('4.10-R1', bytes.status, `GET /attachments/${attachment.id}`);
      expectAt('4.10-R1', sha256(bytes.bytes), `bytes of attachment ${i} of ${id}`).toBe(
        m.attachments[i],
      );
    }
  }
  toString = () => `get(#${this.pick})`;
}

class PatchCommand implements Command {
  applied: { folder?: string; read?: boolean; starred?: boolean } | undefined;
  constructor(
    readonly pick: number,
    readonly changes: { folder?: number; read?: boolean; starred?: boolean },
  ) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, m] = [...model.emails][this.pick % model.emails.size]!;
    const { folder, ...flags } = this.changes;
    const changes = {
      ...flags,
      ...(folder === undefined ? {} : { folder: folderAt(model, folder) }),
    };
    this.applied = changes;
    const response = await real.api.request({
      method: 'PATCH',
      path: `/emails/${id}`,
      json: changes,
      apiKey: real.apiKey,
    });
    expectSuccess('4.5-R1', response.status, `PATCH /emails/${id}`);
    Object.assign(m, changes);
    const status = response.status;
    const answer = response.json<Detail>();
    const state = { folder: m.folder, read: m.read, starred: m.starred };
    // D-20: 200 with the updated email.
    decide(model, () => {
      expectAt('D-20', status, `PATCH /emails/${id} status`).toBe(200);
      expectAt('D-20', answer, `PATCH /emails/${id} answer`).toMatchObject(state);
    });
  }
  toString = () => `patch(#${this.pick}, ${JSON.stringify(this.applied ?? this.changes)})`;
}

class DeleteCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id] = [...model.emails][this.pick % model.emails.size]!;
    const response = await real.api.request({
      method: 'DELETE',
      path: `/emails/${id}`,
      apiKey: real.apiKey,
    });
    expectAt('4.6-R1', response.status, `DELETE /emails/${id}`).toBe(204);
    model.emails.delete(id);
    model.deleted.push(id);
    const after = (await real.api.request({ path: `/emails/${id}`, apiKey: real.apiKey })).status;
    expectRefusal('4.6-R1', after, 'GET after DELETE');
    decide(model, () => expectAt('D-12', after, 'GET after DELETE').toBe(404));
  }
  toString = () => `delete(#${this.pick})`;
}

class ReplyCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) =>
    [...model.emails.values()].some((m) => m.folder === 'inbox');
  async run(model: MailboxModel, real: Real): Promise<void> {
    const inbox = [...model.emails].filter(([, m]) => m.folder === 'inbox');
    const [id, original] = inbox[this.pick % inbox.length]!;
    const response = await real.api.request({
      method: 'POST',
      path: `/emails/${id}/reply`,
      json: { text: 'Noted.' },
      apiKey: real.apiKey,
    });
    const sent = sentCopy(model, '4.7-R1', response, `POST /emails/${id}/reply`);
    // §4.7: the service determines the subject; ours is Re: once (D-22).
    const ours = /^re:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`;
    const subject = sent.subject;
    decide(model, () => expectAt('D-22', subject, 'subject of the reply').toBe(ours));
    await recordSentToSelf(model, real, sent.id, subject, [], 'the reply reaches the mailbox once');
  }
  toString = () => `reply(#${this.pick})`;
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
async function recordSentToSelf(
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

/**
 * The listed emails `wanted` picks, listing again (after 100 ms, then every 250 ms) until one
 * is there or `deliveryTimeoutMs` has passed.
 */
async function arrived(
  real: Real,
  wanted: (email: Awaited<ReturnType<typeof listAll>>[number]) => boolean,
) {
  const deadline = Date.now() + (real.deliveryTimeoutMs ?? 0);
  const first = (await listAll(real)).filter(wanted);
  if (first.length > 0 || Date.now() >= deadline) return first;
  return waitingOnTarget(async () => {
    for (let wait = 100; ; wait = Math.min(wait * 2, 250)) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const found = (await listAll(real)).filter(wanted);
      if (found.length > 0 || Date.now() >= deadline) return found;
    }
  });
}

/** Forwards an email of the mailbox to itself: body, subject and attachments reused (§4.8). */
class ForwardCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, original] = [...model.emails][this.pick % model.emails.size]!;
    const response = await real.api.request({
      method: 'POST',
      path: `/emails/${id}/forward`,
      json: { to: real.mailbox },
      apiKey: real.apiKey,
    });
    const sent = sentCopy(model, '4.8-R2', response, `POST /emails/${id}/forward`);
    const subject = sent.subject;
    // §4.8: the original subject is reused; Fwd: once is ours (D-23).
    expectAt('4.8-R2', subject, 'the forward reuses the original subject').toContain(
      original.subject.replace(/^(fwd?|fw):\s*/i, ''),
    );
    const ours = /^(fwd?|fw):/i.test(original.subject)
      ? original.subject
      : `Fwd: ${original.subject}`;
    decide(model, () => expectAt('D-23', subject, 'subject of the forward').toBe(ours));
    expectAt('4.8-R2', sent.attachments.length, 'the original attachments are forwarded').toBe(
      original.attachments.length,
    );
    await recordSentToSelf(
      model,
      real,
      sent.id,
      subject,
      original.attachments,
      'the forward reaches the mailbox once',
    );
  }
  toString = () => `forward(#${this.pick})`;
}

class DownloadCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) => model.uploads.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, hash] = [...model.uploads][this.pick % model.uploads.size]!;
    const response = await real.api.request({ path: `/attachments/${id}`, apiKey: real.apiKey });
    expectSuccess('4.10-R1', response.status, `GET /attachments/${id}`);
    expectAt('4.10-R1', sha256(response.bytes), `bytes of upload ${id}`).toBe(hash);
  }
  toString = () => `download(upload #${this.pick})`;
}

/** A folder, as a pick among those known when the command runs (see folderAt). */
const FOLDER = fc.nat({ max: 7 });

/** A send to the mailbox itself, with or without an attachment. */
const sendCommand = fc
  .tuple(
    fc.stringMatching(/^[a-z]{3,8}( [a-z]{2,6})?$/),
    fc.option(fc.uint8Array({ minLength: 1, maxLength: 2048 }), { nil: null }),
  )
  .map(([subject, bytes]) => new SendCommand(subject, bytes));

/** Every operation as a generated command. */
const mailboxCommands = fc.commands(
  [
    sendCommand,
    fc.option(FOLDER, { nil: undefined }).map((folder) => new ListCommand(folder)),
    fc.nat().map((pick) => new GetCommand(pick)),
    fc
      .tuple(
        fc.nat(),
        fc.record(
          { folder: FOLDER, read: fc.boolean(), starred: fc.boolean() },
          { requiredKeys: [] },
        ),
      )
      .filter(([, c]) => Object.keys(c).length > 0)
      .map(([pick, changes]) => new PatchCommand(pick, changes)),
    fc.nat().map((pick) => new DeleteCommand(pick)),
    fc.nat().map((pick) => new ReplyCommand(pick)),
    fc.nat().map((pick) => new ForwardCommand(pick)),
    fc.nat().map((pick) => new DownloadCommand(pick)),
  ],
  { maxCommands: 12 },
);

/**
 * A generated sequence: a send, then any commands. fast-check's `fc.commands` may give an
 * empty sequence, or one whose every command needs mail first (get, patch, delete, reply,
 * forward, download) and is passed over: such a case sends nothing and checks nothing. The
 * opening send makes every case reach the target and gives the commands after it mail to act
 * on. Run it with {@link sequenceOf}.
 */
export const mailboxSequences = fc.tuple(sendCommand, mailboxCommands);

/** The commands of a generated sequence, in order, for `fc.asyncModelRun`. */
export function sequenceOf([first, rest]: [Command, Iterable<Command>]): Command[] {
  return [first, ...rest];
}

export function emptyModel(): MailboxModel {
  return {
    emails: new Map(),
    uploads: new Map(),
    deleted: [],
    folders: ['inbox', 'trash'],
    decided: [],
  };
}

/** The decided expectations a sequence collected, in order (each charged to its D-rule). */
export function checkDecided(model: MailboxModel): void {
  for (const check of model.decided) check();
}
