import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream } from 'smtp-server';
import type { Email } from '../domain/types.ts';
import type { InboundService } from '../services/inbound-service.ts';
import type { Store } from '../store/store.ts';

/** What the SMTP ingress needs of the emulator: who has a mailbox, and how mail arrives. */
export interface SmtpIngressDeps {
  store: Store;
  inbound: InboundService;
  /**
   * The largest message taken, in bytes: the control plane's raw inbound limit, so a message
   * SMTP accepts is one `POST /_mailtwin/v1/inbound` would accept too.
   */
  maxMessageBytes: number;
  /** Told of each message taken or refused, for the request log. */
  onMessage?: (outcome: SmtpOutcome) => void;
}

/** One message handed over by SMTP: where it went, or why it was refused. */
export interface SmtpOutcome {
  from: string;
  delivered: Email[];
  refused?: { code: number; reason: string };
  bytes: number;
}

/** A started SMTP ingress: the port it listens on, and how to stop it. */
export interface SmtpIngress {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** An SMTP reply code and enhanced status for a refusal (RFC 3463). */
function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/**
 * Mail the way it really arrives: an SMTP server (smtp-server) in front of the inbound path the
 * control plane uses, so a message reaches each known recipient's inbox exactly as
 * `POST /_mailtwin/v1/inbound` with `message/rfc822` would deliver it (parsed by mailparser,
 * attachments kept, `email.received` webhooks fired).
 * - An unknown recipient is refused at RCPT with 550 5.1.1; the known ones still get the mail.
 * - A message over the limit is refused with 552 5.3.4 (the limit is announced with SIZE).
 * - No AUTH and no STARTTLS: a local test tool, reached on loopback.
 */
export async function startSmtpIngress(
  deps: SmtpIngressDeps,
  host: string,
  port: number,
): Promise<SmtpIngress> {
  const server = new SMTPServer({
    name: 'mailtwin',
    banner: 'mailtwin emulator: mail for its mailboxes only',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: deps.maxMessageBytes,
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const mailbox = deps.store.directory.getMailbox(address.address.toLowerCase());
      if (mailbox === undefined)
        return callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
      callback();
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const refuse = (code: number, reason: string) => {
          deps.onMessage?.({ from, delivered: [], refused: { code, reason }, bytes: raw.length });
          callback(smtpError(code, reason));
        };
        if (stream.sizeExceeded)
          return refuse(552, `5.3.4 Message exceeds the limit of ${deps.maxMessageBytes} bytes`);
        const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        deliverToAll(deps.inbound, raw, [...new Set(recipients)]).then(
          (delivered) => {
            deps.onMessage?.({ from, delivered, bytes: raw.length });
            callback(null, `Delivered to ${delivered.length} mailbox(es)`);
          },
          (error: Error) => refuse(554, `5.6.0 The message was not accepted: ${error.message}`),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors of one connection (a client that hangs up mid-message) must not stop the emulator.
  server.on('error', () => {});
  const address = server.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    port: bound,
    url: `smtp://${shownHost}:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Parses the message once and gives each recipient's mailbox its own copy (D-33: own ids). */
async function deliverToAll(
  inbound: InboundService,
  raw: Buffer,
  mailboxes: string[],
): Promise<Email[]> {
  const message = await inbound.parseRaw(raw);
  return mailboxes.map((mailbox) => inbound.deliverParsed(message, { mailbox }));
}
