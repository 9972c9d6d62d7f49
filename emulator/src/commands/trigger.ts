import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from '../cli-options.ts';
import {
  HELP_FLAG,
  defaultOf,
  helpOptions,
  parseArgsOptions,
  type Flag,
} from '../../../shared/flag-table.ts';
import {
  CONTROL_FLAGS,
  controlCall,
  controlConnection,
  type ControlConnection,
} from './control-connection.ts';

/**
 * Every flag of `mailtwin trigger`, written once: the parser, `--help` and the table of
 * docs/webhooks.md are made from it (flag-table.ts).
 */
export const TRIGGER_FLAGS = [
  {
    name: 'mailbox',
    type: 'string',
    value: '<address>',
    required: true,
    description: 'The mailbox that receives it',
  },
  {
    name: 'from',
    type: 'string',
    value: '<address>',
    default: 'mailtwin trigger <trigger@example.com>',
    description: 'Its sender',
  },
  {
    name: 'subject',
    type: 'string',
    value: '<text>',
    default: 'Triggered by mailtwin',
    description: 'Its subject',
  },
  {
    name: 'text',
    type: 'string',
    value: '<text>',
    unset: 'a line saying when it was made',
    description: 'Its text body',
  },
  {
    name: 'eml',
    type: 'string',
    value: '<file>',
    description:
      'A whole RFC 822 message to deliver instead (--from, --subject and --text do not apply)',
  },
  ...CONTROL_FLAGS,
  HELP_FLAG,
] as const satisfies readonly Flag[];

export const TRIGGER_HELP = `Usage: mailtwin trigger email.received --mailbox <address> [options]

Makes one inbound email in a mailbox of a running emulator, as mail arriving from outside: it
is stored in the inbox and every webhook covering the mailbox gets email.received.

${helpOptions(TRIGGER_FLAGS)}`;

export interface TriggerOptions {
  connection: ControlConnection;
  mailbox: string;
  message:
    | { kind: 'fields'; from: string; subject: string; text: string }
    | { kind: 'eml'; path: string; raw: Uint8Array };
}

/** The only event the service sends (§6). */
const EVENTS = ['email.received'];

export function parseTriggerOptions(
  argv: string[],
  env: NodeJS.ProcessEnv,
  now: () => Date = () => new Date(),
): TriggerOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: parseArgsOptions(TRIGGER_FLAGS),
    });
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.split('\n')[0]} (see mailtwin trigger --help)`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [event, ...extra] = positionals;
  if (event === undefined || !EVENTS.includes(event) || extra.length > 0)
    throw new UsageError(
      `give the event to trigger: ${EVENTS.join(', ')} (see mailtwin trigger --help)`,
    );
  if (values.mailbox === undefined) throw new UsageError('--mailbox <address> is required');
  if (values.eml !== undefined) {
    const clash = (['from', 'subject', 'text'] as const).find((f) => values[f] !== undefined);
    if (clash !== undefined) throw new UsageError(`--eml and --${clash} cannot be used together`);
  }
  const connection = controlConnection(values, env);
  if (values.eml !== undefined) {
    let raw: Uint8Array;
    try {
      raw = readFileSync(values.eml);
    } catch (error) {
      throw new UsageError(
        `--eml ${values.eml}: ${(error as NodeJS.ErrnoException).code ?? 'cannot read it'}`,
      );
    }
    return { connection, mailbox: values.mailbox, message: { kind: 'eml', path: values.eml, raw } };
  }
  return {
    connection,
    mailbox: values.mailbox,
    message: {
      kind: 'fields',
      from: values.from ?? defaultOf(TRIGGER_FLAGS, 'from'),
      subject: values.subject ?? defaultOf(TRIGGER_FLAGS, 'subject'),
      text: values.text ?? `Made by mailtwin trigger at ${now().toISOString()}.`,
    },
  };
}

/** Delivers the email through the control plane; the line to print: its id, mailbox, subject. */
export async function runTrigger(options: TriggerOptions): Promise<string> {
  const { connection, mailbox, message } = options;
  const body =
    message.kind === 'eml'
      ? { raw: message.raw, contentType: 'message/rfc822' }
      : {
          json: {
            mailbox,
            from: message.from,
            to: [mailbox],
            subject: message.subject,
            text: message.text,
          },
        };
  const path = message.kind === 'eml' ? `/inbound?${new URLSearchParams({ mailbox })}` : '/inbound';
  const email = await controlCall<{ id: string; subject: string }>(connection, 'POST', path, body);
  return `email.received: ${email.id} in ${mailbox} ("${email.subject}")`;
}
