import type { Address, Email } from './types.ts';

/** D-22: `Re: ` once; an existing `Re:` (any case) is kept as is, never doubled. */
export function replySubject(subject: string): string {
  return /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`;
}

/** D-23: `Fwd: ` once; an existing `Fwd:`/`Fw:` is kept. */
export function forwardSubject(subject: string): string {
  return /^\s*fwd?\s*:/i.test(subject) ? subject : `Fwd: ${subject}`;
}

/** D-22: In-Reply-To is the original Message-ID; References the original's plus its Message-ID. */
export function replyThreading(original: Pick<Email, 'messageId' | 'references'>): {
  inReplyTo: string;
  references: string[];
} {
  return {
    inReplyTo: original.messageId,
    references: [
      ...original.references.filter((r) => r !== original.messageId),
      original.messageId,
    ],
  };
}

/**
 * D-22: a reply goes to the original sender (its Reply-To when it has one); a reply to the
 * mailbox's own sent message goes to that message's recipients. With `replyAll`, every other
 * original To and Cc address joins, except the replying mailbox, each address once.
 * D-49: when nobody but the replying mailbox is left (a note to oneself, mail from oneself to
 * undisclosed recipients, a Reply-To naming the mailbox), the reply goes to the mailbox itself.
 */
export function replyRecipients(
  original: Pick<Email, 'from' | 'to' | 'cc' | 'replyTo'>,
  replyingMailbox: string,
  replyAll: boolean,
): { to: Address[]; cc: Address[] } {
  const own = original.from.address === replyingMailbox;
  const primary = own
    ? original.to
    : original.replyTo.length > 0
      ? original.replyTo
      : [original.from];
  const seen = new Set<string>([replyingMailbox]);
  const keep = (list: Address[]) =>
    list.filter((a) => {
      if (seen.has(a.address)) return false;
      seen.add(a.address);
      return true;
    });
  let to = keep(primary);
  if (to.length === 0) to = [selfAddress(original, replyingMailbox)];
  if (!replyAll) return { to, cc: [] };
  const moreTo = own ? [] : keep(original.to);
  return { to: [...to, ...moreTo], cc: keep(original.cc) };
}

/** The replying mailbox as the original names it (keeping its display name), else bare. */
function selfAddress(
  original: Pick<Email, 'from' | 'to' | 'cc' | 'replyTo'>,
  mailbox: string,
): Address {
  const named = [original.from, ...original.replyTo, ...original.to, ...original.cc];
  return named.find((a) => a.address === mailbox) ?? { address: mailbox, name: null };
}
