import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerDataStream,
  type SMTPServerSession,
} from 'smtp-server';
import type { Email } from '../domain/types.ts';
import type { InboundService, ParsedMessage } from '../services/inbound-service.ts';
import { OFF_THREAD_MESSAGE_BYTES } from '../mime/parse-off-thread.ts';
import type { Store } from '../store/store.ts';
import type { Chaos } from '../chaos/chaos.ts';
import { smtpGate } from '../chaos/smtp.ts';
import { DEFAULT_SMTP_LIMITS, type SmtpLimits } from './smtp-limits.ts';
import { GroupCommit } from './group-commit.ts';

/** What the SMTP ingress needs of the emulator: who has a mailbox, and how mail arrives. */
export interface SmtpIngressDeps {
  store: Store;
  inbound: InboundService;
  /** Chaos rules for the connect, MAIL, RCPT and DATA stages (docs/chaos.md). */
  chaos?: Chaos;
  /**
   * The largest message taken, in bytes: the control plane's raw inbound limit, so a message
   * SMTP accepts is one `POST /_mailtwin/v1/inbound` would accept too.
   */
  maxMessageBytes: number;
  /** Connections at once and deadlines; each one left out takes its default. */
  limits?: Partial<SmtpLimits>;
  /** Told of each message taken or refused, for the request log. */
  onMessage?: (outcome: SmtpOutcome) => void;
  /** Told the bytes of the message in progress the ingress holds, after each chunk (tests). */
  onHeld?: (bytes: number) => void;
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
 * - A message over the limit is refused with 552 5.3.4 (the limit is announced with SIZE). One
 *   sent without `SIZE=` is read to its end but only counted once past the limit, never kept.
 * - At most `maxClients` connections at once; a DATA phase or a session past its deadline gets
 *   421 4.4.2 and is closed (a trickle of bytes defeats the idle timeout alone).
 * - No AUTH and no STARTTLS: a local test tool, reached on loopback.
 * - Messages parsed together (their DATA ended in the same turn, or while others were being
 *   parsed) are stored in one transaction (group-commit.ts); each is acknowledged (250) only
 *   once that transaction is committed.
 */
export async function startSmtpIngress(
  deps: SmtpIngressDeps,
  host: string,
  port: number,
): Promise<SmtpIngress> {
  const limits = { ...DEFAULT_SMTP_LIMITS, ...deps.limits };
  // The search index's rows of a group's emails, and their webhook deliveries, are written once
  // its messages are (indexAfter, deliveriesAfter): outside each message's savepoint.
  const commits = new GroupCommit((work) =>
    deps.store.transaction(() =>
      deps.store.webhooks.deliveriesAfter(() => deps.store.emails.indexAfter(work)),
    ),
  );
  const sessionDeadlines = new Map<string, NodeJS.Timeout>();
  /** Answers 421 and closes the connection of a session (smtp-server's own way to end one). */
  const closeSession = (session: SMTPServerSession, text: string) => {
    for (const connection of server.connections)
      if (connection.session === session) connection.send(421, text);
  };
  const server: SMTPServer = new SMTPServer({
    name: 'mailtwin',
    banner: 'mailtwin emulator: mail for its mailboxes only',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: deps.maxMessageBytes,
    maxClients: limits.maxClients,
    socketTimeout: limits.idleTimeoutMs,
    closeTimeout: limits.closeGraceMs,
    logger: false,
    // A local tool on loopback: no DNS query for the client's name (smtp-server waits up to
    // 1.5 s for it before the greeting of every connection), which only the greeting echoes.
    disableReverseLookup: true,
    onConnect(session, callback) {
      const deadline = setTimeout(
        () =>
          closeSession(
            session,
            `4.4.2 The session took longer than ${limits.sessionTimeoutMs} ms, closing`,
          ),
        limits.sessionTimeoutMs,
      );
      sessionDeadlines.set(session.id, deadline.unref());
      smtpGate(deps.chaos, 'connect').pass(callback, (code, text) =>
        callback(smtpError(code, text)),
      );
    },
    onMailFrom(_address, _session, callback) {
      smtpGate(deps.chaos, 'mail').pass(callback, (code, text) => callback(smtpError(code, text)));
    },
    onClose(session) {
      clearTimeout(sessionDeadlines.get(session.id));
      sessionDeadlines.delete(session.id);
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const known = () => {
        const mailbox = deps.store.directory.getMailbox(address.address.toLowerCase());
        if (mailbox === undefined)
          return callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
        callback();
      };
      smtpGate(deps.chaos, 'rcpt').pass(known, (code, text) => callback(smtpError(code, text)));
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
      const gate = smtpGate(deps.chaos, 'data');
      const message = new BoundedMessage(deps.maxMessageBytes);
      const deadline = setTimeout(() => {
        const reason = `4.4.2 DATA took longer than ${limits.dataTimeoutMs} ms, closing`;
        message.discard();
        deps.onMessage?.({
          from,
          delivered: [],
          refused: { code: 421, reason },
          bytes: message.bytes,
        });
        closeSession(session, reason);
      }, limits.dataTimeoutMs).unref();
      stream.on('data', (chunk: Buffer) => {
        message.add(chunk);
        deps.onHeld?.(message.held);
      });
      // Ended, or destroyed because the connection closed (a deadline, a client hanging up).
      stream.on('close', () => clearTimeout(deadline));
      stream.on('end', () => {
        clearTimeout(deadline);
        const refuse = (code: number, reason: string) => {
          deps.onMessage?.({
            from,
            delivered: [],
            refused: { code, reason },
            bytes: message.bytes,
          });
          callback(smtpError(code, reason));
        };
        if (message.exceeded || stream.sizeExceeded)
          return refuse(552, `5.3.4 Message exceeds the limit of ${deps.maxMessageBytes} bytes`);
        // A chaos rule for DATA refuses the whole message (nothing delivered) or delays the reply.
        gate.pass(() => deliver(message.take(), refuse), refuse);
      });
      const deliver = (raw: Buffer, refuse: (code: number, reason: string) => void) => {
        const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        deliverToAll(deps.inbound, commits, raw, [...new Set(recipients)]).then(
          (delivered) => {
            deps.onMessage?.({ from, delivered, bytes: raw.length });
            callback(null, `Delivered to ${delivered.length} mailbox(es)`);
          },
          (error: Error) => refuse(554, `5.6.0 The message was not accepted: ${error.message}`),
        );
      };
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const deadline of sessionDeadlines.values()) clearTimeout(deadline);
        sessionDeadlines.clear();
        server.close(() => resolve());
      }),
  };
}

/**
 * The message in progress: kept whole while within the limit, then only counted, so a client
 * that sends more than it may (without announcing `SIZE=`) costs at most the limit in memory.
 */
class BoundedMessage {
  /** Bytes received so far, kept or not. */
  bytes = 0;
  /** Bytes kept. */
  held = 0;
  private chunks: Buffer[] = [];

  constructor(private readonly limit: number) {}

  get exceeded(): boolean {
    return this.bytes > this.limit;
  }

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.exceeded) return this.discard();
    this.chunks.push(chunk);
    this.held += chunk.length;
  }

  discard(): void {
    this.chunks = [];
    this.held = 0;
  }

  take(): Buffer {
    return Buffer.concat(this.chunks, this.held);
  }
}

/**
 * Parses the message once and gives each recipient's mailbox its own copy (D-33: own ids), in
 * the transaction of the messages parsed with it (group-commit.ts); resolves once that is
 * committed. A group waits for this parse, unless the message is parsed on a render thread
 * (larger than OFF_THREAD_MESSAGE_BYTES), which may take a second.
 */
function deliverToAll(
  inbound: InboundService,
  commits: GroupCommit,
  raw: Buffer,
  mailboxes: string[],
): Promise<Email[]> {
  const large = raw.length > OFF_THREAD_MESSAGE_BYTES; // before its bytes move to the thread
  const parsed = inbound.parseRaw(raw);
  const store = (message: ParsedMessage) =>
    mailboxes.map((mailbox) => inbound.deliverParsed(message, { mailbox }));
  return large
    ? parsed.then((message) => commits.run(() => store(message)))
    : commits.after(parsed, store);
}
