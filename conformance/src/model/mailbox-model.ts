/**
 * Model-based stateful testing of one mailbox, laid out like fast-check's musicPlayer example:
 * a model much simpler than any deployment (a map of what the mailbox should hold), one command
 * per operation with `check`/`run`/`toString`, and `fc.commands` to generate sequences. After
 * every command the deployment must agree with the model.
 *
 * The model assumes only the document: folders are inbox and trash (§3.1) and those the target
 * shows (the folder its sent copies are in); ties in a listing come in any order; statuses are
 * any 2xx, a refusal any 4xx. What only our decisions fix (201, 200 for PATCH, 404, the order of
 * ties, the sent folder, Re:/Fwd:) is asserted apart, charged to its D-rule, after the sequence
 * ({@link MailboxModel.decided}), so that a deployment that decided otherwise is still checked
 * against every documented rule to the end.
 */
import type fc from 'fast-check';
import type { ApiClient } from '../client/client.ts';
import type { MailboxArrivals } from './arrivals.ts';

export interface ModelMail {
  folder: string;
  read: boolean;
  starred: boolean;
  subject: string;
  /** sha256 of each attachment's bytes, in order. */
  attachments: string[];
}

export interface MailboxModel {
  emails: Map<string, ModelMail>;
  /** Upload id → sha256 of its bytes. */
  uploads: Map<string, string>;
  deleted: string[];
  /** Folders a PATCH may name: inbox and trash (§3.1), then those the target showed. */
  folders: string[];
  /** Decided expectations, each charged to its D-rule: run them after the sequence. */
  decided: (() => void)[];
}

/** The folder a generated pick names among the folders known so far. */
export const folderAt = (model: Readonly<MailboxModel>, pick: number) =>
  model.folders[pick % model.folders.length] as string;

/** A folder the target showed, so that PATCH and list may name it too. */
export function learnFolder(model: MailboxModel, folder: unknown): void {
  if (typeof folder === 'string' && folder !== '' && !model.folders.includes(folder))
    model.folders.push(folder);
}

/** A decided expectation (its assertions charged with expectAt), checked after the sequence. */
export function decide(model: MailboxModel, check: () => void): void {
  model.decided.push(check);
}

export interface Real {
  api: ApiClient;
  apiKey: string;
  mailbox: string;
  /** A unique prefix for this run's subjects, so the run finds its own mail. */
  tag: string;
  /**
   * How long a copy sent to the mailbox may take to arrive (`--delivery-timeout`): §4.3 does
   * not say delivery is instant, so the model waits for it before judging.
   */
  deliveryTimeoutMs?: number;
  /**
   * Set where sequences run side by side against a live target: one watcher of the mailbox
   * awaits every sequence's mail at once (arrivals.ts).
   */
  arrivals?: MailboxArrivals;
}

export type Command = fc.AsyncCommand<MailboxModel, Real, false>;

export function emptyModel(): MailboxModel {
  return {
    emails: new Map(),
    uploads: new Map(),
    deleted: [],
    folders: ['inbox', 'trash'],
    decided: [],
  };
}

/** The decided expectations a sequence collected, in order (each charged to its D-rule). */
export function checkDecided(model: MailboxModel): void {
  for (const check of model.decided) check();
}
