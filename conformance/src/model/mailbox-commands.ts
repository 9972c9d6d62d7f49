/**
 * One command per operation on the mailbox (fast-check's musicPlayer layout): each runs the
 * operation on the deployment and checks it against the model (mailbox-model.ts).
 */
import { expectAt } from '../contract/charge.ts';
import { expectRefusal, expectSuccess } from './statuses.ts';
import { decide, folderAt, type Command, type MailboxModel, type Real } from './mailbox-model.ts';
import {
  detail,
  listAll,
  recordSentToSelf,
  sentCopy,
  sha256,
  upload,
  type Detail,
} from './mailbox-requests.ts';

/** Sends from the mailbox to itself: a sent copy and, delivered locally, an inbox copy (D-48). */
export class SendCommand implements Command {
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

export class ListCommand implements Command {
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

export class GetCommand implements Command {
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

export class PatchCommand implements Command {
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

export class DeleteCommand implements Command {
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

export class ReplyCommand implements Command {
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

/** Forwards an email of the mailbox to itself: body, subject and attachments reused (§4.8). */
export class ForwardCommand implements Command {
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

export class DownloadCommand implements Command {
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
