import { describe, expect, it, vi } from 'vitest';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { openStore } from './store.ts';

const MAILBOX = 'box@acme.test';

function email(id: string, attachmentCount = 0) {
  return storedEmail({
    id,
    mailbox: MAILBOX,
    from: { address: 'a@partner.test', name: null },
    to: [{ address: MAILBOX, name: null }],
    subject: id,
    messageId: `<${id}@partner.test>`,
    receivedAt: '2026-01-01T00:00:00.000Z',
    attachmentCount,
  });
}

describe('EmailStore.get', () => {
  it('looks attachments up only for an email stored with some, and gives them in order', () => {
    const store = openStore(':memory:');
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    store.emails.insert(email('em_plain'));
    const files = ['one.txt', 'two.txt'].map((name, i) => ({
      id: `att_${i}`,
      name,
      contentType: 'text/plain',
      bytes: new TextEncoder().encode(name),
    }));
    store.emails.insert(email('em_files', 2), files);
    const lookups = vi.spyOn(
      store.emails as never as { attachmentsOf: () => unknown },
      'attachmentsOf',
    );

    expect(store.emails.get('em_plain')?.attachments).toEqual([]);
    expect(lookups).not.toHaveBeenCalled();
    expect(store.emails.get('em_files')?.attachments).toEqual([
      { id: 'att_0', name: 'one.txt', contentType: 'text/plain', size: 7 },
      { id: 'att_1', name: 'two.txt', contentType: 'text/plain', size: 7 },
    ]);
    expect(lookups).toHaveBeenCalledTimes(1);
    store.close();
  });

  it('builds the email for about the CPU of reading its row (no slow object literal)', () => {
    const store = openStore(':memory:');
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    for (let n = 0; n < 50; n += 1) store.emails.insert(email(`em_${n}`));
    const row = store.db.prepare(
      'SELECT e.*, c.text_body, c.html_body FROM emails e JOIN email_contents c ON c.seq = e.seq WHERE e.id = ?',
    );
    const cpu = (read: (id: string) => unknown) => {
      const start = process.cpuUsage();
      for (let n = 0; n < 5_000; n += 1) read(`em_${n % 50}`);
      const used = process.cpuUsage(start);
      return used.user + used.system;
    };
    // Warm both up, then take the least of three (CPU time, not wall time).
    cpu((id) => store.emails.get(id));
    cpu((id) => row.get(id));
    const least = (read: (id: string) => unknown) => Math.min(cpu(read), cpu(read), cpu(read));
    const built = least((id) => store.emails.get(id));
    const alone = least((id) => row.get(id));
    // About 1.2 times; an object spread followed by ten keys made it about 6 times.
    expect(built / alone).toBeLessThan(2.5);
    store.close();
  });
});
