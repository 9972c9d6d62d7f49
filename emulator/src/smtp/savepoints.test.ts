/**
 * Savepoints an SMTP message costs (issue 31 item 2). SMTP's group commit stores each message
 * in a savepoint of the group's transaction (group-commit.ts), so that one that throws leaves
 * the others written; the email's own insert took a second savepoint nested in that one, which
 * its rollback already covered. Counted: calls of better-sqlite3's transaction functions made
 * while a transaction is open (each one a SAVEPOINT and its RELEASE).
 */
import Database from 'better-sqlite3';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { GroupCommit } from './group-commit.ts';

let savepoints = 0;

beforeEach(() => {
  savepoints = 0;
  const made = Database.prototype.transaction;
  vi.spyOn(Database.prototype, 'transaction').mockImplementation(function (
    this: Database.Database,
    fn,
  ) {
    const db = this;
    const transaction = made.call(db, fn);
    const counted = function (this: unknown, ...args: unknown[]) {
      if (db.inTransaction) savepoints += 1;
      return transaction.apply(this, args as never);
    };
    return Object.assign(counted, transaction) as unknown as typeof transaction;
  });
});

afterEach(() => vi.restoreAllMocks());

function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  services.directory.createMailbox({ address: 'alice@acme.test' });
  // As smtp-ingress.ts makes it.
  const commits = new GroupCommit((work) =>
    deps.store.transaction(() => deps.store.emails.indexAfter(work)),
  );
  const raw = (subject: string, attachments: { filename: string; content: string }[] = []) =>
    new Promise<Buffer>((resolve, reject) =>
      new MailComposer({
        from: 'Jin Park <jin@northwind.test>',
        to: 'alice@acme.test',
        subject,
        text: `About ${subject}.`,
        attachments,
      })
        .compile()
        .build((error, message) => (error ? reject(error) : resolve(message))),
    );
  const count = (table: string) =>
    deps.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  return { deps, services, commits, raw, count };
}

describe('an SMTP message stored in a group commit', () => {
  it('takes one savepoint, its delivery’s, and none more for its email', async () => {
    const { services, commits, raw, count } = world();
    const messages = await Promise.all(
      ['one', 'two', 'three'].map(async (s) => services.inbound.parseRaw(await raw(s))),
    );
    const before = count('emails');
    savepoints = 0;
    await Promise.all(
      messages.map((message) =>
        commits.run(() => services.inbound.deliverParsed(message, { mailbox: 'alice@acme.test' })),
      ),
    );
    expect(count('emails')).toBe(before + 3);
    expect(savepoints).toBe(3);
  });

  it('leaves nothing of an email whose insert fails half-way, and the rest of its group is stored', async () => {
    const { services, commits, raw, count } = world();
    const files = [
      { filename: 'a.txt', content: 'first file' },
      { filename: 'b.txt', content: 'second file' },
    ];
    const [good, bad] = await Promise.all([
      raw('kept').then((r) => services.inbound.parseRaw(r)),
      raw('refused', files).then((r) => services.inbound.parseRaw(r)),
    ]);
    const before = { emails: count('emails'), contents: count('email_contents') };
    const attachmentsBefore = count('message_attachments');
    // Both files given one id: the email's row and its first file are written, then the
    // second file's row breaks the id's uniqueness.
    const outcomes = await Promise.allSettled([
      commits.run(() => services.inbound.deliverParsed(good!, { mailbox: 'alice@acme.test' })),
      commits.run(() =>
        services.inbound.deliverParsed(
          bad!,
          { mailbox: 'alice@acme.test' },
          {
            attachmentIds: [
              'f1b5b0a2-0000-4000-8000-000000000001',
              'f1b5b0a2-0000-4000-8000-000000000001',
            ],
          },
        ),
      ),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(count('emails')).toBe(before.emails + 1);
    expect(count('email_contents')).toBe(before.contents + 1);
    expect(count('message_attachments')).toBe(attachmentsBefore);
  });

  it('is refused by EmailStore.insert outside a transaction when told to take none of its own', async () => {
    const { deps, services, raw } = world();
    const message = await services.inbound.parseRaw(await raw('alone'));
    const email = deps.store.transaction(() =>
      services.inbound.deliverParsed(message, { mailbox: 'alice@acme.test' }),
    );
    expect(() =>
      deps.store.emails.insert({ ...email, id: `${email.id.slice(0, -1)}Z` }, [], undefined, {
        inCallersTransaction: true,
      }),
    ).toThrow(/outside a transaction/);
  });
});
