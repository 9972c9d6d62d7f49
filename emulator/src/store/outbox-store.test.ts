import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './database.ts';
import { OutboxStore, searchableText } from './outbox-store.ts';
import { Store } from './store.ts';

/** Issue 27 item 1: what storing a large outgoing message costs the event loop. */
function world() {
  const store = new Store(openDatabase());
  return { store, outbox: store.outbox };
}

const entry = (id: string) => ({
  id,
  sentEmailId: null,
  from: 'alice@acme.test',
  recipients: ['bob@partner.test'],
  subject: 'Hello',
  messageId: `<${id}@acme.test>`,
  createdAt: '2026-11-20T09:00:00.000Z',
});

afterEach(() => vi.restoreAllMocks());

describe('the outbox store', () => {
  it("stores a message's bytes as they are, without copying them first", () => {
    const { outbox } = world();
    const bytes = Buffer.from('Subject: Hello\r\n\r\nHi\r\n');
    // As a render thread hands a message back: a Uint8Array over memory of its own.
    const lent = new Uint8Array(bytes);
    const from = vi.spyOn(Buffer, 'from');
    outbox.add(entry('out_1'), bytes, searchableText('Hi'));
    outbox.add(entry('out_2'), lent, searchableText('Hi'));
    // A one-argument Buffer.from of a byte array copies it (5 MB: about 20 ms of the loop).
    const copies = from.mock.calls.filter(
      (args) => args.length === 1 && (args[0] === bytes || args[0] === lent),
    );
    expect(copies).toHaveLength(0);
    from.mockRestore();
    expect(outbox.get('out_1')?.raw.equals(bytes)).toBe(true);
    expect(outbox.get('out_2')?.raw.equals(bytes)).toBe(true);
    expect(outbox.get('out_2')?.entry.size).toBe(bytes.length);
  });

  it("finds by the text filter in the text's lower-cased copy (D-71)", () => {
    const { outbox } = world();
    outbox.add(entry('out_1'), Buffer.from('raw'), searchableText('Grüße aus ÄRHUS'));
    expect(outbox.find({ text: 'ärhus' }).entries.map((e) => e.id)).toEqual(['out_1']);
    expect(outbox.find({ text: 'oslo' }).entries).toEqual([]);
  });

  it('binds no LIMIT as a bare parameter, so a page keeps its prepared plan', () => {
    // SQLite prepares a statement again on every run when its planner read a bound parameter,
    // as it does a bare one in a LIMIT (page-query.test.ts); the page's LIMIT is an expression.
    const { store, outbox } = world();
    for (const id of ['out_1', 'out_2', 'out_3']) outbox.add(entry(id), Buffer.from('raw'));
    const prepare = vi.spyOn(store.db, 'prepare');
    const first = outbox.find({ from: 'alice' }, 2);
    expect(first.entries.map((e) => e.id)).toEqual(['out_3', 'out_2']);
    expect(first.more).toBe(true);
    expect(outbox.find({ from: 'alice' }, 2, first.last).entries.map((e) => e.id)).toEqual([
      'out_1',
    ]);
    const limits = prepare.mock.calls.map(([sql]) => /LIMIT\s+(.*)$/s.exec(String(sql))?.[1]);
    expect(limits.length).toBeGreaterThan(0);
    for (const limit of limits) expect(limit).toBe('@take + 0');
  });

  it('shows staged bytes only once the entry naming them is written (migration 011)', () => {
    const { store, outbox } = world();
    const bytes = Buffer.from('Subject: Staged\r\n\r\nHi\r\n');
    const staged = outbox.stage('out_1', bytes);
    expect(outbox.list()).toEqual([]);
    expect(outbox.get('out_1')).toBeUndefined();
    const added = outbox.add(entry('out_1'), staged, searchableText('Hi'));
    expect(added.size).toBe(bytes.length);
    expect(outbox.get('out_1')?.raw.equals(bytes)).toBe(true);
    expect(outbox.find({ text: 'hi' }).entries).toEqual([added]);
    expect(() => outbox.add(entry('out_2'), staged)).toThrow(/staged for out_1/);
    // Deleting the entries deletes their bytes; staged bytes whose entry never came are dropped
    // when the store opens, or by unstage.
    const rows = () =>
      (store.db.prepare('SELECT count(*) AS n FROM outbox_raw').get() as { n: number }).n;
    outbox.clear();
    expect(rows()).toBe(0);
    outbox.stage('out_3', bytes);
    outbox.stage('out_4', bytes);
    outbox.unstage('out_3');
    expect(rows()).toBe(1);
    new OutboxStore(store.db);
    expect(rows()).toBe(0);
  });
});
