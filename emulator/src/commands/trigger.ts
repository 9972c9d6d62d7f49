import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from '../cli-options.ts';
import { controlCall, controlConnection, type ControlConnection } from './control-connection.ts';

export const TRIGGER_HELP = `Usage: mailtwin trigger email.received --mailbox <address> [options]

Makes one inbound email in a mailbox of a running emulator, as mail arriving from outside: it
is stored in the inbox and every webhook covering the mailbox gets email.received.

Options:
  --mailbox <address>  The mailbox that receives it (required)
  --from <address>     Its sender (default: "mailtwin trigger <trigger@example.com>")
  --subject <text>     Its subject (default: "Triggered by mailtwin")
  --text <text>        Its text body (default: a line saying when it was made)
  --eml <file>         A whole RFC 822 message to deliver instead (--from, --subject and
                       --text do not apply)
  --url <url>          The emulator (its origin or control URL; default $MAILTWIN_CONTROL_URL)
  --token <token>      Its control token (default $MAILTWIN_CONTROL_TOKEN)
  -h, --help           Show this help
`;

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
      options: {
        mailbox: { type: 'string' },
        from: { type: 'string' },
        subject: { type: 'string' },
        text: { type: 'string' },
        eml: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
      from: values.from ?? 'mailtwin trigger <trigger@example.com>',
      subject: values.subject ?? 'Triggered by mailtwin',
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
