import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';

/** One POST of a webhook delivery to an address the guard has already vetted. */
export interface OutgoingDelivery {
  url: URL;
  /** The IP address to connect to: exactly the one checked (no second DNS lookup). */
  address: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

/** What came back; a redirect is a status like any other and is never followed (§2.5). */
export interface DeliveryResponse {
  status: number;
  /** The start of the answer's body (UTF-8), for the dashboard; absent when not read. */
  body?: string;
}

/** Sends a delivery and reports the answer; injected so tests decide what the network does. */
export type Connector = (delivery: OutgoingDelivery) => Promise<DeliveryResponse>;

const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of an answer's body is kept to show in the dashboard. */
const KEPT_RESPONSE_BYTES = 2 * 1024;

/**
 * The real connector: node's http/https to the vetted address (TLS still checks the host name),
 * no agent reuse, no redirects, one deadline for the whole exchange (D-30).
 */
export const httpConnector: Connector = (delivery) =>
  new Promise((resolve, reject) => {
    const { url, address, headers, body, timeoutMs } = delivery;
    const secure = url.protocol === 'https:';
    const request = (secure ? https : http).request({
      host: address,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: false,
      headers: { ...headers, Host: url.host, 'Content-Length': String(body.length) },
      ...(secure && isIP(url.hostname) === 0 ? { servername: url.hostname } : {}),
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const timeout = new Error(`timed out after ${timeoutMs} ms`);
    const deadline = setTimeout(() => {
      settle(() => reject(timeout));
      request.destroy(timeout);
    }, timeoutMs);
    request.on('error', (error) => settle(() => reject(error)));
    request.on('response', (response) => {
      let received = 0;
      const kept: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        if (received < KEPT_RESPONSE_BYTES)
          kept.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - received));
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) response.destroy(); // only its start is ever shown
      });
      // The answer counts once its last byte arrived within the deadline (D-30).
      const body = () => Buffer.concat(kept).toString('utf8');
      const done = () => settle(() => resolve({ status: response.statusCode ?? 0, body: body() }));
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(body);
  });
