/**
 * The tags of checks that run side by side in an API world (issue 31 item 3), where they share
 * the target's own mailboxes: each such check claims a tag of its own, carries it in the
 * subject of every email it sends (send-world.ts, `subject`), and its mail watch sees only the
 * mail it made or tagged, never mail carrying another check's tag (mail-watch.ts). Mail that
 * carries no tag of the run is not any one check's: every check sees it, as it would alone, so
 * a stray email (a refused request the target stored after all) is never hidden.
 *
 * A reply or forward keeps the original's subject (§4.7, §4.8), so it carries the tag of the
 * check that sent the original. The tags are kept for the whole run: mail of a check that has
 * ended is still told apart from the mail of the checks that run after it.
 */
import { randomBytes } from 'node:crypto';

const claimed = new Set<string>();

/** A tag no other check of this worker holds: a word that occurs in no other subject. */
export function claimTag(): string {
  for (;;) {
    const tag = `ck${randomBytes(5).toString('hex')}`;
    if (claimed.has(tag)) continue;
    claimed.add(tag);
    return tag;
  }
}

/** Whether `subject` carries some claimed tag other than `own`. */
export function carriesOtherTag(subject: string, own: string): boolean {
  for (const tag of claimed) if (tag !== own && subject.includes(tag)) return true;
  return false;
}

/** `text` tagged with `tag`, as a check running side by side writes a subject. */
export function tagged(text: string, tag: string): string {
  return `${text} [${tag}]`;
}
