/**
 * EmailStore.indexAfter (issue 31 item 2): SMTP's group commit stores each message in a
 * savepoint of one transaction, and FTS5 writes the rows it holds as a new segment of its index
 * at every savepoint after its first write: a segment a message, merged again and again. The
 * rows of a group's emails are written after its messages instead, as one segment.
 */
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';

function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  services.directory.createMailbox({ address: 'alice@acme.test' });
  const { db } = deps.store;
  const deliver = (word: string) =>
    services.inbound.injectJson({
      mailbox: 'alice@acme.test',
      from: 'jin@northwind.test',
      subject: `About ${word}`,
      text: `The ${word} arrived.`,
    });
  /** The rows of the FTS5 index's own table: one more for each segment written (and kept). */
  const indexRows = () => db.prepare('SELECT count(*) FROM emails_fts_data').pluck().get();
  const found = (word: string) =>
    db.prepare('SELECT rowid FROM emails_fts WHERE emails_fts MATCH ?').pluck().all(word);
  const seqOf = (id: string) => db.prepare('SELECT seq FROM emails WHERE id = ?').pluck().get(id);
  return { deps, deliver, indexRows, found, seqOf };
}

const WORDS = [
  'amber',
  'basil',
  'cedar',
  'dune',
  'ember',
  'fern',
  'grove',
  'heath',
  'iris',
  'jade',
];

describe('the search rows of a group of messages', () => {
  it('are written as one segment, after the messages, each email found by its words', () => {
    const { deps, deliver, indexRows, found, seqOf } = world();
    deliver('first'); // the index exists, with a segment
    const before = indexRows();
    const emails = deps.store.transaction(() =>
      deps.store.emails.indexAfter(() => WORDS.map((word) => deliver(word))),
    );
    // One segment for the ten, where a segment a message gave ten.
    expect(indexRows()).toBe((before as number) + 1);
    WORDS.forEach((word, i) => expect(found(word)).toEqual([seqOf(emails[i]!.id)]));
    expect(found('arrived')).toHaveLength(11);
  });

  it('leave none for a message whose savepoint was rolled back, and index the email that takes its rowid', () => {
    const { deps, deliver, found, seqOf } = world();
    const kept = deps.store.transaction(() =>
      deps.store.emails.indexAfter(() => {
        const first = deliver('amber');
        expect(() =>
          deps.store.transaction(() => {
            deliver('basil');
            throw new Error('the delivery failed after its insert');
          }),
        ).toThrow('after its insert');
        return [first, deliver('cedar')];
      }),
    );
    expect(found('basil')).toEqual([]);
    expect(found('amber')).toEqual([seqOf(kept[0]!.id)]);
    expect(found('cedar')).toEqual([seqOf(kept[1]!.id)]);
    expect(found('arrived')).toHaveLength(2);
  });

  it('are all undone with the transaction when it fails', () => {
    const { deps, deliver, found } = world();
    expect(() =>
      deps.store.transaction(() =>
        deps.store.emails.indexAfter(() => {
          deliver('amber');
          throw new Error('the group failed');
        }),
      ),
    ).toThrow('the group failed');
    deliver('basil');
    expect(found('amber')).toEqual([]);
    expect(found('arrived')).toHaveLength(1);
  });
});
