/**
 * §4.3 rule 5 ("send has no idempotency guarantee; a retry … may produce a duplicate email"),
 * §4.7 and §4.8 ("no idempotency guarantee") withhold a promise; they do not demand a
 * duplicate. Two identical requests may make two emails, or one on a service that deduplicates:
 * both conform. What is required either way: each answer is a 201 with a sent copy, the
 * answers name one email or two, and exactly those exist, each delivered once, nothing more.
 */
import { expect } from 'vitest';
import type { EmailDetail, World } from './send-world.ts';

/**
 * Two answers to identical requests: the same email (the same message), or two emails (two
 * messages, two Message-IDs), each a sent copy of the same mailbox.
 */
export function expectSameOrNewEmail(first: EmailDetail, second: EmailDetail): void {
  for (const [label, answer] of [
    ['first', first],
    ['second', second],
  ] as const) {
    expect(answer.folder, `the ${label} answer is the sent copy`).toBe('sent');
  }
  expect(second.mailbox, 'both answers are copies of the sending mailbox').toBe(first.mailbox);
  if (second.id === first.id) {
    expect(second.messageId, 'one email answered twice is one message').toBe(first.messageId);
  } else {
    expect(second.messageId, 'two emails are two messages, with two Message-IDs').not.toBe(
      first.messageId,
    );
  }
}

/** Where the emails of identical requests must show, and how often: once per email made. */
export interface Deliveries {
  /** The sending mailbox, whose sent folder holds exactly the emails made. */
  sender: string;
  /** Local recipients, whose inboxes hold one copy per email made. */
  inboxes?: string[];
  /** External recipients were named: the transport got one message per email made. */
  outbox?: boolean;
  /** Emails of the sender's sent folder that were there before the identical requests. */
  before?: string[];
}

/**
 * The emails made by identical requests whose answers name `ids` (one email or two): the
 * sender's sent folder holds exactly those (beside `before`), each recipient's inbox one copy
 * of each, and the transport one message for each. Returns how many emails were made.
 */
export async function expectEmailsMade(
  w: World,
  ids: string[],
  { sender, inboxes = [], outbox = false, before = [] }: Deliveries,
): Promise<number> {
  const made = [...new Set(ids)];
  const sent = (await w.listed(sender, 'sent')).map((e) => e.id);
  expect(
    sent.filter((id) => !before.includes(id)).sort(),
    `the sent folder holds the ${made.length === 1 ? 'one email both answers name' : 'emails the answers name'}, nothing more`,
  ).toEqual(made.sort());
  for (const inbox of inboxes) {
    expect(await w.listed(inbox, 'inbox'), `${inbox} got one copy of each email made`).toHaveLength(
      made.length,
    );
  }
  if (outbox) {
    expect(await w.outbox(), 'the transport got one message for each email made').toHaveLength(
      made.length,
    );
  }
  return made.length;
}
