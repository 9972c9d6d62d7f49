import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitingOnTarget } from './waiting.ts';

/** One delivery as the receiver saw it: exact raw bytes and headers. */
export interface ReceivedDelivery {
  method: string;
  /** The request target as sent: path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

/** How to answer the n-th delivery (0-based): a status, optionally late, optionally a redirect. */
export type Answer = (n: number) => { status: number; delayMs?: number; location?: string };

/**
 * A webhook receiver on loopback for checks: records every POST byte for byte and answers as
 * the check says (2xx, 500, a redirect, or too late), so delivery, signature, retries and
 * pausing can be observed from outside the deployment.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  private readonly server: Server;
  private waiters: (() => void)[] = [];

  private constructor(private answer: Answer) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const n = this.deliveries.length;
        this.deliveries.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        });
        for (const wake of this.waiters.splice(0)) wake();
        const { status, delayMs = 0, location } = this.answer(n);
        setTimeout(() => {
          if (response.destroyed) return;
          response.writeHead(status, location === undefined ? {} : { Location: location });
          response.end('ok');
        }, delayMs);
      });
    });
  }

  /**
   * Listens on loopback at a free port, or where `listen` says: the address a deployment's
   * webhook reaches (`--webhook-listen`, behind `--webhook-public-url`).
   */
  static async start(
    answer: Answer = () => ({ status: 200 }),
    listen: { host: string; port: number } = { host: '127.0.0.1', port: 0 },
  ): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(answer);
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(listen.port, listen.host, resolve);
    });
    return receiver;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hook`;
  }

  answerWith(answer: Answer): void {
    this.answer = answer;
  }

  /** Resolves once `count` deliveries have arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedDelivery[]> {
    return this.waitForMatching(() => true, count, timeoutMs);
  }

  /**
   * Resolves once `count` deliveries that `matches` picks have arrived (a live receiver may
   * get deliveries of other mail too); rejects after `timeoutMs`.
   */
  async waitForMatching(
    matches: (delivery: ReceivedDelivery) => boolean,
    count: number,
    timeoutMs: number,
  ): Promise<ReceivedDelivery[]> {
    const picked = () => this.deliveries.filter(matches);
    const deadline = Date.now() + timeoutMs;
    while (picked().length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `expected ${count} webhook deliveries within ${timeoutMs} ms, got ${picked().length}`,
        );
      await waitingOnTarget(
        () =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            this.waiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
      );
    }
    return picked().slice(0, count);
  }

  /** Lets the process end while this receiver still listens. */
  unref(): void {
    this.server.unref();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let live: Promise<WebhookReceiver> | undefined;

/**
 * The receiver behind a live target's `--webhook-public-url`: started once, when the worker
 * builds its target, and kept answering 200 for the whole run, so the deployment's webhook,
 * which covers every mail the run causes, never fails (and is never paused) between checks.
 * It does not keep the process alive.
 */
export function liveReceiver(listen: { host: string; port: number }): Promise<WebhookReceiver> {
  live ??= WebhookReceiver.start(undefined, listen).then((receiver) => {
    receiver.unref();
    return receiver;
  });
  return live;
}
