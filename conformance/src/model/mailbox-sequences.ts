/**
 * Generated sequences of mailbox commands (mailbox-commands.ts) for `fc.asyncModelRun`.
 */
import fc from 'fast-check';
import type { Command } from './mailbox-model.ts';
import {
  DeleteCommand,
  DownloadCommand,
  ForwardCommand,
  GetCommand,
  ListCommand,
  PatchCommand,
  ReplyCommand,
  SendCommand,
} from './mailbox-commands.ts';

/** A folder, as a pick among those known when the command runs (see folderAt). */
const FOLDER = fc.nat({ max: 7 });

/** A send to the mailbox itself, with or without an attachment. */
const sendCommand = fc
  .tuple(
    fc.stringMatching(/^[a-z]{3,8}( [a-z]{2,6})?$/),
    fc.option(fc.uint8Array({ minLength: 1, maxLength: 2048 }), { nil: null }),
  )
  .map(([subject, bytes]) => new SendCommand(subject, bytes));

/** Every operation as a generated command. */
const mailboxCommands = fc.commands(
  [
    sendCommand,
    fc.option(FOLDER, { nil: undefined }).map((folder) => new ListCommand(folder)),
    fc.nat().map((pick) => new GetCommand(pick)),
    fc
      .tuple(
        fc.nat(),
        fc.record(
          { folder: FOLDER, read: fc.boolean(), starred: fc.boolean() },
          { requiredKeys: [] },
        ),
      )
      .filter(([, c]) => Object.keys(c).length > 0)
      .map(([pick, changes]) => new PatchCommand(pick, changes)),
    fc.nat().map((pick) => new DeleteCommand(pick)),
    fc.nat().map((pick) => new ReplyCommand(pick)),
    fc.nat().map((pick) => new ForwardCommand(pick)),
    fc.nat().map((pick) => new DownloadCommand(pick)),
  ],
  { maxCommands: 12 },
);

/**
 * A generated sequence: a send, then any commands. fast-check's `fc.commands` may give an
 * empty sequence, or one whose every command needs mail first (get, patch, delete, reply,
 * forward, download) and is passed over: such a case sends nothing and checks nothing. The
 * opening send makes every case reach the target and gives the commands after it mail to act
 * on. Run it with {@link sequenceOf}.
 */
export const mailboxSequences = fc.tuple(sendCommand, mailboxCommands);

/** The commands of a generated sequence, in order, for `fc.asyncModelRun`. */
export function sequenceOf([first, rest]: [Command, Iterable<Command>]): Command[] {
  return [first, ...rest];
}
