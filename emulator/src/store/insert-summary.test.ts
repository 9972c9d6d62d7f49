/**
 * EmailStore.insert writes an email's summary JSON (migrations 006 and 013) in its INSERT, by the
 * same SQL function from the values the row is written with, where an UPDATE after the INSERT
 * read the row back and wrote it again (issue 31 item 2). The JSON must be byte for byte what
 * rendering it from the stored row gives, awkward values included.
 */
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';

const FROM_THE_ROW = `UPDATE emails SET summary_json = mailtwin_summary_json(id, mailbox, from_address,
  from_name, to_json, cc_json, subject, snippet, received_at, attachment_count, folder, read, starred)`;

describe("an email's summary JSON written with its row", () => {
  it('is what rendering it from the stored row gives, with no UPDATE of the row', () => {
    const deps = defaultDeps({ logError: () => {} });
    const services = createServices(deps);
    services.directory.createMailbox({ address: 'alice@acme.test' });
    const { db } = deps.store;
    const statement = Object.getPrototypeOf(db.prepare('SELECT 1')) as Database.Statement;
    const run = statement.run;
    let updates = 0;
    statement.run = function (this: Database.Statement, ...params: unknown[]) {
      if (/^\s*UPDATE emails\b/.test(this.source)) updates += 1;
      return run.apply(this, params as []);
    } as typeof run;
    try {
      const awkward = [
        'plain',
        'lone \ud800 surrogate',
        'emoji 📨 and "quotes" \\ back\nslash',
        'ümlaut <b>&amp;</b>',
        '',
      ];
      awkward.forEach((text, i) => {
        const name = text.replace(/["\\\n]/g, '');
        services.inbound.injectJson({
          mailbox: 'alice@acme.test',
          from: i % 2 === 0 ? `"${name || 'x'}" <jin@northwind.test>` : 'jin@northwind.test',
          to: ['alice@acme.test', `"${name}" <bob@acme.test>`],
          cc: i === 3 ? [`"${name}" <carol@acme.test>`] : [],
          subject: text,
          text: `${text} body`,
          read: i % 2 === 1,
          starred: i === 2,
          folder: i === 4 ? 'archive' : 'inbox',
          attachments:
            i === 1
              ? [{ name: 'a.txt', contentType: 'text/plain', contentBase64: 'YQ==' }]
              : undefined,
        });
      });
      expect(updates).toBe(0);
    } finally {
      statement.run = run;
    }
    const summaries = () =>
      db.prepare('SELECT CAST(summary_json AS TEXT) FROM emails ORDER BY seq').pluck().all();
    const written = summaries();
    expect(written).toHaveLength(5);
    db.prepare(FROM_THE_ROW).run();
    expect(summaries()).toEqual(written);
    expect(written.join('')).toContain('\ufffd'); // the lone surrogate, as SQLite stored it
  });
});

describe('EmailStore.insert', () => {
  it('makes no transaction function of its own for each email (its own, made once, is reused)', () => {
    const deps = defaultDeps({ logError: () => {} });
    const services = createServices(deps);
    services.directory.createMailbox({ address: 'alice@acme.test' });
    const made = vi.spyOn(deps.store.db, 'transaction');
    for (let i = 0; i < 5; i += 1)
      services.inbound.injectJson({
        mailbox: 'alice@acme.test',
        from: 'jin@northwind.test',
        subject: `Order ${i}`,
        text: 'Hello',
      });
    expect(made).not.toHaveBeenCalled();
    expect(deps.store.emails.count()).toBe(5);
  });
});
