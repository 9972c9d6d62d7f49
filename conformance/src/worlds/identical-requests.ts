/**
 * §4.3 rule 5 ("send has no idempotency guarantee; a retry … may produce a duplicate email"),
 * §4.7 and §4.8 ("no idempotency guarantee") withhold a promise; they do not demand a
 * duplicate. Two identical requests may make two emails, or one on a service that deduplicates:
 * both conform. What is required either way: each answer is a success with a sent copy, the
 * answers name one email or two, and exactly those exist, each delivered once, nothing more.
 * Every assertion is charged to the documented rule the caller names (4.3-R5, 4.7-R4 or
 * 4.8-R4); which folder holds sent copies is the target's (D-48 chose sent), so the folder is
 * the one the answers name.
 */
import { expectAt } from '../contract/charge.ts';
import type { EmailDetail, World } from './send-world.ts';

/**
 * Two answers to identical requests: the same email (the same message), or two emails (two
 * messages, two Message-IDs), each a copy of the sending mailbox in one folder.
 */
export function expectSameOrNewEmail(rule: string, first: EmailDetail, second: EmailDetail): void {
  expectAt(rule, second.mailbox, 'both answers are copies of the sending mailbox').toBe(
    first.mailbox,
  );
  expectAt(rule, second.folder, 'both answers are in the same folder, the sent copies’').toBe(
    first.folder,
  );
  if (second.id === first.id) {
    expectAt(rule, second.messageId, 'one email answered twice is one message').toBe(
      first.messageId,
    );
  } else {
    expectAt(rule, second.messageId, 'two emails are two messages, with two Message-IDs').not.toBe(
      first.messageId,
    );
  }
}

/** Where the emails of identical requests must show, and how often: once per email made. */
export interface Deliveries {
  /** The sending mailbox, whose folder of sent copies holds exactly the emails made. */
  sender: string;
  /** The folder of the sender's copies, as the answers name it (D-48 chose sent). */
  folder: string;
  /** Local recipients, each holding one copy per email made (inbox is one of §3.1's folders). */
  inboxes?: string[];
  /** External recipients were named: the transport got one message per email made. */
  outbox?: boolean;
  /** Emails of the sender's sent folder that were there before the identical requests. */
  before?: string[];
}

/**
 * The emails made by identical requests whose answers name `ids` (one email or two): the
 * sender's folder of sent copies holds exactly those (beside `before`), each recipient one copy
 * of each, and the transport one message for each. Returns how many emails were made.
 */
export async function expectEmailsMade(
  rule: string,
  w: World,
  ids: string[],
  { sender, folder, inboxes = [], outbox = false, before = [] }: Deliveries,
): Promise<number> {
  const made = [...new Set(ids)];
  const sent = (await w.listed(sender, folder)).map((e) => e.id);
  expectAt(
    rule,
    sent.filter((id) => !before.includes(id)).sort(),
    `the ${folder} folder holds the ${made.length === 1 ? 'one email both answers name' : 'emails the answers name'}, nothing more`,
  ).toEqual(made.sort());
  for (const inbox of inboxes) {
    expectAt(rule, await w.listed(inbox), `${inbox} got one copy of each email made`).toHaveLength(
      made.length,
    );
  }
  if (outbox) {
    expectAt(
      rule,
      await w.outbox(),
      'the transport got one message for each email made',
    ).toHaveLength(made.length);
  }
  return made.length;
}
