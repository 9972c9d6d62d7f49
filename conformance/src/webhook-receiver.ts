import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as the receiver saw it: exact raw bytes and headers. */
export interface ReceivedDelivery {
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

  static async start(answer: Answer = () => ({ status: 200 })): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(answer);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
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
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `expected ${count} webhook deliveries within ${timeoutMs} ms, got ${this.deliveries.length}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.deliveries.slice(0, count);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
