/**
 * A minimal webhook receiver for the Email Service, on node:http with no framework: copy it and
 * replace `onEvent` with your own processing.
 *
 * What it does, and why (§6.3, §6.4):
 * - reads the body as raw bytes and verifies it with `verifyWebhook` from `mailtwin/webhooks`
 *   BEFORE parsing: the signature covers the exact bytes, so a re-serialised body would not match;
 * - answers 401 to a delivery whose signature does not match or whose timestamp is outside the
 *   replay window (not authentic now), 400 to a malformed one (missing or malformed header, body,
 *   or a header that disagrees with the body), 413 to a body over `maxBodyBytes`;
 * - processes each email once: a delivery is retried until it gets a 2xx (D-34), so the same
 *   `data.id` + `webhookId` can arrive again; a duplicate is answered 200 without processing. A
 *   delivery whose `onEvent` throws is answered 500 and forgotten, so its retry processes it again;
 * - the dashboard's test delivery (`webhook.test`, D-37) has no `data.id`: it is handed to
 *   `onEvent` every time and answered 2xx.
 * The set of processed keys lives in memory; a real receiver keeps it in its database, in the same
 * transaction as the processing.
 *
 * Run it against the emulator (`npm start` prints the control plane's URL; pass
 * `--control-token` to choose its token), in two terminals:
 *
 *     npm start -- --control-token devtoken     # loopback webhook targets are allowed
 *     MAILTWIN_WEBHOOK_SECRET=whsec_0123456789abcdefghijABCD PORT=8787 \
 *       node --import tsx examples/receiver.ts
 *
 * then create a webhook that targets it, with that secret (or omit `secret`, take the one the
 * answer shows once, §2.5, and restart the receiver with it):
 *
 *     curl -X POST http://127.0.0.1:4025/_mailtwin/v1/webhooks \
 *       -H 'Authorization: Bearer devtoken' -H 'Content-Type: application/json' \
 *       -d '{"ownerId":"own_acme","url":"http://127.0.0.1:8787/","scope":"follow-owner",
 *            "secret":"whsec_0123456789abcdefghijABCD"}'
 *
 * `POST /_mailtwin/v1/webhooks/{id}/test` sends a test delivery; `POST /_mailtwin/v1/inbound`
 * delivers an email and so an `email.received`. Without PORT (or with PORT=0) the receiver picks a
 * free port and prints it; HOST defaults to 127.0.0.1. The receiver checks timestamps against the
 * real clock: after moving the emulator's clock (`/_mailtwin/v1/clock`) deliveries fall outside
 * the 300 s window and are answered 401 (then retried, D-34) unless `toleranceSeconds` is raised.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  WebhookVerificationError,
  verifyWebhook,
  type VerifiedWebhook,
  type WebhookVerificationErrorCode,
} from 'mailtwin/webhooks';

export interface ReceiverOptions {
  /** The webhook's signing secret, whole (`whsec_...`, D-36). */
  secret: string;
  /** Processes one verified delivery; throw to have it answered 500 and retried by the service. */
  onEvent: (delivery: VerifiedWebhook) => void | Promise<void>;
  /** Replay window in seconds (§6.3 rule 3). Default 300. */
  toleranceSeconds?: number;
  /** Largest body accepted, in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
}

/** Not authentic now: answered 401 (§6.3 rule 4). Every other verification error is a 400. */
const UNAUTHORIZED: ReadonlySet<WebhookVerificationErrorCode> = new Set([
  'signature_mismatch',
  'timestamp_outside_tolerance',
]);

class BodyTooLarge extends Error {}

/** Creates the receiver; the caller listens (`server.listen(port, host)`) and closes it. */
export function createReceiver(options: ReceiverOptions): Server {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  // Key `${webhookId}\n${data.id}` → the processing, shared by a duplicate that arrives meanwhile.
  const processed = new Map<string, Promise<void>>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return reply(res, 405, { code: 'method_not_allowed', message: 'deliveries are POSTs' });
    }
    let rawBody: Buffer;
    try {
      rawBody = await readRawBody(req, maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      res.setHeader('Connection', 'close');
      return reply(res, 413, { code: 'body_too_large', message: `over ${maxBodyBytes} bytes` });
    }

    let delivery: VerifiedWebhook;
    try {
      delivery = verifyWebhook({
        secret: options.secret,
        headers: req.headers,
        rawBody,
        toleranceSeconds: options.toleranceSeconds,
      });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      return reply(res, UNAUTHORIZED.has(error.code) ? 401 : 400, {
        code: error.code,
        message: error.message,
      });
    }

    const emailId = delivery.payload.data['id'];
    if (typeof emailId !== 'string') {
      await options.onEvent(delivery); // webhook.test, or an event without an email: no dedupe key
      return reply(res, 200, { received: true });
    }
    const key = `${delivery.webhookId}\n${emailId}`;
    const earlier = processed.get(key);
    if (earlier !== undefined) {
      await earlier; // a duplicate: wait for the first to finish, process nothing
      return reply(res, 200, { received: true, duplicate: true });
    }
    const processing = Promise.resolve().then(() => options.onEvent(delivery));
    processed.set(key, processing);
    try {
      await processing;
    } catch (error) {
      processed.delete(key); // not processed: the retry must process it
      throw error;
    }
    return reply(res, 200, { received: true });
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('webhook receiver: processing failed:', error);
      if (!res.headersSent) reply(res, 500, { code: 'internal', message: 'processing failed' });
      else res.destroy();
    });
  });
}

/** The request body as the exact bytes received. */
function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** `node --import tsx examples/receiver.ts`: reads the environment, listens, logs each event. */
async function main(): Promise<void> {
  const secret = process.env['MAILTWIN_WEBHOOK_SECRET'];
  if (secret === undefined || !secret.startsWith('whsec_')) {
    console.error('MAILTWIN_WEBHOOK_SECRET must be set to the webhook signing secret (whsec_...)');
    process.exitCode = 2;
    return;
  }
  const port = Number(process.env['PORT'] ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, got "${process.env['PORT']}"`);
    process.exitCode = 2;
    return;
  }
  const host = process.env['HOST'] ?? '127.0.0.1';
  const server = createReceiver({
    secret,
    onEvent: ({ event, webhookId, payload }) => {
      const id = payload.data['id'];
      console.log(
        `${new Date().toISOString()} ${event} webhook=${webhookId} email=${String(id ?? '-')}`,
      );
    },
  });
  server.on('error', (error) => {
    console.error(`cannot listen on ${host}:${port}: ${error.message}`);
    process.exitCode = 1;
  });
  server.listen(port, host, () => {
    const { port: chosen } = server.address() as AddressInfo;
    console.log(`webhook receiver listening on http://${host}:${chosen}/ (Ctrl-C to stop)`);
  });
  process.once('SIGINT', () => server.close());
  process.once('SIGTERM', () => server.close());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
