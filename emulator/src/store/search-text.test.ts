import { describe, expect, it } from 'vitest';
import { ftsMatchExpression } from '../domain/search.ts';
import type { Email } from '../domain/types.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { searchedText, SEARCHED_TEXT_CHARACTERS } from './search-text.ts';
import { openStore } from './store.ts';

const MAILBOX = 'box@acme.test';

function email(id: string, text: string): Email {
  return storedEmail({
    id,
    mailbox: MAILBOX,
    from: { address: 'sender@partner.test', name: null },
    to: [{ address: MAILBOX, name: null }],
    subject: 'Large',
    snippet: text.slice(0, 200),
    text,
    messageId: `<${id}@partner.test>`,
    receivedAt: '2026-01-01T00:00:00.000Z',
  });
}

describe('the text body is indexed up to a bound (D-68, issue 27 item 1)', () => {
  it('keeps a text within the bound whole', () => {
    expect(searchedText('short text')).toBe('short text');
    const exact = 'x'.repeat(SEARCHED_TEXT_CHARACTERS);
    expect(searchedText(exact)).toBe(exact);
  });

  it('cuts a longer text at its last whitespace within the bound, so no word is shortened', () => {
    expect(searchedText('alpha beta gamma', 8)).toBe('alpha');
    expect(searchedText('alpha beta gamma', 10)).toBe('alpha beta');
    expect(searchedText('alpha\nbeta gamma', 9)).toBe('alpha');
    // No whitespace within the bound: the bound itself.
    expect(searchedText('abcdefghij', 4)).toBe('abcd');
  });

  it('finds a word of a 4.9 MB body before the bound, not one after it, and stores the whole body', () => {
    const store = openStore();
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    const text = `alpha ${'word '.repeat(980_000)}omega`;
    store.emails.insert(email('em_large', text));
    const found = (q: string) =>
      store.emails
        .list({ mailbox: MAILBOX, match: ftsMatchExpression(q) }, 10)
        .emails.map((e) => e.id);
    expect(found('alpha')).toEqual(['em_large']);
    expect(found('word')).toEqual(['em_large']);
    // Before D-68 the whole body was indexed in one statement (0.1 to 0.5 s here) and "omega"
    // was found.
    expect(found('omega')).toEqual([]);
    expect(store.emails.get('em_large')?.text).toBe(text);
  });
});
