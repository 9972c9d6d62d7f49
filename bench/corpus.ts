import { snippetOf } from '../emulator/src/domain/email-view.ts';
import type { Email } from '../emulator/src/domain/types.ts';
import type { Ids } from '../emulator/src/ids.ts';
import type { Store } from '../emulator/src/store/store.ts';
import { storedEmail } from '../emulator/src/test-helpers/stored-email.ts';

const FOLDERS = ['inbox', 'inbox', 'inbox', 'archive', 'sent', 'spam', 'trash'] as const;
const SYLLABLES = 'ka lo mi ne ru sa to vi ze pa qu ri do fe gu ha'.split(' ');

/** A deterministic pseudo-random source, so every run searches the same corpus. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** 3,000 made-up words; `pick` draws them with a Zipf-like frequency: a few common, many rare. */
export function vocabulary(random: () => number): { words: string[]; pick: () => string } {
  const words = new Set<string>();
  while (words.size < 3000) {
    const n = 2 + Math.floor(random() * 3);
    words.add(
      Array.from({ length: n }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''),
    );
  }
  const list = [...words];
  return { words: list, pick: () => list[Math.floor(list.length * random() ** 3)] as string };
}

/**
 * Inserts `count` emails (~1 KB of text each, 30 s apart from 1 January 2026) into `mailbox`
 * in one transaction, through the store as the emulator writes them. Returns every 100th
 * email's subject and text, to sample search terms that exist.
 */
export function fillMailbox(
  store: Store,
  ids: Ids,
  mailbox: string,
  count: number,
  pick: () => string,
): string[] {
  const texts: string[] = [];
  store.transaction(() => {
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < count; i += 1) {
      const subject = Array.from({ length: 5 }, pick).join(' ');
      const text = Array.from({ length: 120 }, pick).join(' ');
      if (i % 100 === 0) texts.push(`${subject} ${text}`);
      const receivedAt = new Date(base + i * 30_000).toISOString();
      const email = storedEmail({
        id: ids.emailId(new Date(base + i * 30_000)),
        mailbox,
        folder: FOLDERS[i % FOLDERS.length] as Email['folder'],
        read: i % 3 === 0,
        starred: i % 11 === 0,
        from: { address: `${pick()}@partner.test`, name: `${pick()} ${pick()}` },
        to: [{ address: mailbox, name: null }],
        subject,
        snippet: snippetOf(text),
        text,
        messageId: `<bench-${mailbox}-${i}@partner.test>`,
        receivedAt,
      });
      store.emails.insert(email);
    }
  });
  return texts;
}
