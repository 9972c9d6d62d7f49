import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ApiClient } from '../client.ts';

/**
 * Model-based stateful testing of one mailbox, laid out like fast-check's musicPlayer example:
 * a model much simpler than any deployment (a map of what the mailbox should hold), one command
 * per operation with `check`/`run`/`toString`, and `fc.commands` to generate sequences. After
 * every command the deployment must agree with the model.
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
}

export interface Real {
  api: ApiClient;
  apiKey: string;
  mailbox: string;
  /** A unique prefix for this run's subjects, so the run finds its own mail. */
  tag: string;
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

async function detail(real: Real, id: string): Promise<Detail> {
  const response = await real.api.request({ path: `/emails/${id}`, apiKey: real.apiKey });
  expect(response.status, `GET /emails/${id}`).toBe(200);
  return response.json<Detail>();
}

/** Every email of this run in the mailbox, via a whole cursor walk. */
async function listAll(
  real: Real,
  folder?: string,
): Promise<
  {
    id: string;
    folder: string;
    read: boolean;
    starred: boolean;
    subject: string;
    receivedAt: string;
  }[]
> {
  const all: {
    id: string;
    folder: string;
    read: boolean;
    starred: boolean;
    subject: string;
    receivedAt: string;
  }[] = [];
  let cursor: string | null = null;
  // A cursor given twice would walk forever (a mock answering one example page does): fail.
  const seen = new Set<string>();
  do {
    const query: Record<string, string> = { mailbox: real.mailbox, limit: '7', q: real.tag };
    if (folder !== undefined) query.folder = folder;
    if (cursor !== null) query.cursor = cursor;
    const response = await real.api.request({ path: '/emails', query, apiKey: real.apiKey });
    expect(response.status, 'GET /emails').toBe(200);
    const page = response.json<{ emails: typeof all; nextCursor: string | null }>();
    all.push(...page.emails);
    cursor = page.nextCursor;
    expect(
      cursor !== null && seen.has(cursor),
      `GET /emails answered nextCursor ${cursor} a second time; the walk would never end`,
    ).toBe(false);
    if (cursor !== null) seen.add(cursor);
  } while (cursor !== null);
  return all;
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
    if (this.attach !== null) {
      const form = new FormData();
      form.append('file', new Blob([this.attach]), 'data.bin');
      const uploaded = await real.api.request({
        method: 'POST',
        path: '/attachments',
        body: form,
        apiKey: real.apiKey,
      });
      expect(uploaded.status, 'POST /attachments').toBe(201);
      const id = uploaded.json<{ id: string }>().id;
      model.uploads.set(id, sha256(this.attach));
      attachmentIds.push(id);
    }
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
    expect(response.status, 'POST /emails/send').toBe(201);
    const sent = response.json<Detail>();
    const hashes = this.attach === null ? [] : [sha256(this.attach)];
    await recordSentToSelf(model, real, sent.id, subject, hashes, `one inbox copy of "${subject}"`);
  }
  toString = () =>
    `send(${JSON.stringify(this.subject)}${this.attach === null ? '' : `, ${this.attach.length} bytes attached`})`;
}

class ListCommand implements Command {
  constructor(readonly folder: string | undefined) {}
  check = () => true;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const listed = await listAll(real, this.folder);
    const expected = [...model.emails].filter(
      ([, m]) => this.folder === undefined || m.folder === this.folder,
    );
    expect(
      listed.map((e) => e.id).sort(),
      `ids listed in ${this.folder ?? 'every folder'}`,
    ).toEqual(expected.map(([id]) => id).sort());
    for (const email of listed) {
      const m = model.emails.get(email.id)!;
      expect(
        { folder: email.folder, read: email.read, starred: email.starred, subject: email.subject },
        `list entry ${email.id}`,
      ).toEqual({ folder: m.folder, read: m.read, starred: m.starred, subject: m.subject });
    }
    for (let i = 1; i < listed.length; i += 1) {
      const [a, b] = [listed[i - 1]!, listed[i]!];
      expect(
        Date.parse(a.receivedAt) > Date.parse(b.receivedAt) ||
          (a.receivedAt === b.receivedAt && a.id > b.id),
        `newest first: ${a.id} before ${b.id}`,
      ).toBe(true);
    }
  }
  toString = () => `list(${this.folder ?? 'all'})`;
}

class GetCommand implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, m] = [...model.emails][this.pick % model.emails.size]!;
    const got = await detail(real, id);
    expect({
      folder: got.folder,
      read: got.read,
      starred: got.starred,
      subject: got.subject,
    }).toEqual({ folder: m.folder, read: m.read, starred: m.starred, subject: m.subject });
    expect(got.attachments.length).toBe(m.attachments.length);
    for (const [i, attachment] of got.attachments.entries()) {
      const bytes = await real.api.request({
        path: `/attachments/${attachment.id}`,
        apiKey: real.apiKey,
      });
      expect(bytes.status).toBe(200);
      expect(sha256(bytes.bytes), `bytes of attachment ${i} of ${id}`).toBe(m.attachments[i]);
    }
  }
  toString = () => `get(#${this.pick})`;
}

class PatchCommand implements Command {
  constructor(
    readonly pick: number,
    readonly changes: { folder?: string; read?: boolean; starred?: boolean },
  ) {}
  check = (model: Readonly<MailboxModel>) => model.emails.size > 0;
  async run(model: MailboxModel, real: Real): Promise<void> {
    const [id, m] = [...model.emails][this.pick % model.emails.size]!;
    const response = await real.api.request({
      method: 'PATCH',
      path: `/emails/${id}`,
      json: this.changes,
      apiKey: real.apiKey,
    });
    expect(response.status, `PATCH /emails/${id}`).toBe(200);
    Object.assign(m, this.changes);
    expect(response.json<Detail>()).toMatchObject({
      folder: m.folder,
      read: m.read,
      starred: m.starred,
    });
  }
  toString = () => `patch(#${this.pick}, ${JSON.stringify(this.changes)})`;
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
    expect(response.status, `DELETE /emails/${id}`).toBe(204);
    model.emails.delete(id);
    model.deleted.push(id);
    expect(
      (await real.api.request({ path: `/emails/${id}`, apiKey: real.apiKey })).status,
      'GET after DELETE',
    ).toBe(404);
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
    expect(response.status, `POST /emails/${id}/reply`).toBe(201);
    const sent = response.json<Detail>();
    const subject = /^re:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`;
    expect(sent.subject).toBe(subject);
    await recordSentToSelf(model, real, sent.id, subject, [], 'the reply reaches the mailbox once');
  }
  toString = () => `reply(#${this.pick})`;
}

/**
 * A message the mailbox sent to itself is two emails: the sent copy (read) and one new unread
 * inbox copy, found as the one email of its subject not yet in the model. A request identical
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
  expect(
    model.deleted.includes(sentId),
    `the 201 names ${sentId}, an email deleted before: an answer must be a sent copy that exists`,
  ).toBe(false);
  const known = model.emails.get(sentId);
  if (known !== undefined) {
    expect(
      known.subject,
      `the 201 names ${sentId}, an email made before: only the same message may be answered again`,
    ).toBe(subject);
    const made = (await listAll(real, 'inbox')).filter(
      (e) => e.subject === subject && !model.emails.has(e.id),
    );
    expect(made.length, 'an answer naming an earlier email adds no inbox copy').toBe(0);
    return;
  }
  model.emails.set(sentId, {
    folder: 'sent',
    read: true,
    starred: false,
    subject,
    attachments: [...attachments],
  });
  const copies = (await listAll(real, 'inbox')).filter(
    (e) => e.subject === subject && !model.emails.has(e.id),
  );
  expect(copies.length, expectation).toBe(1);
  model.emails.set(copies[0]!.id, {
    folder: 'inbox',
    read: false,
    starred: false,
    subject,
    attachments: [...attachments],
  });
}

/** Forwards an email of the mailbox to itself: body, subject (Fwd: once) and attachments reused. */
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
    expect(response.status, `POST /emails/${id}/forward`).toBe(201);
    const sent = response.json<Detail>();
    const subject = /^(fwd?|fw):/i.test(original.subject)
      ? original.subject
      : `Fwd: ${original.subject}`;
    expect(sent.subject).toBe(subject);
    expect(sent.attachments.length, 'the original attachments are forwarded').toBe(
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
    expect(response.status).toBe(200);
    expect(sha256(response.bytes), `bytes of upload ${id}`).toBe(hash);
  }
  toString = () => `download(upload #${this.pick})`;
}

const FOLDER = fc.constantFrom('inbox', 'sent', 'archive', 'spam', 'trash');

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
  return { emails: new Map(), uploads: new Map(), deleted: [] };
}
