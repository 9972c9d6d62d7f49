import { request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Whole requests a server makes to itself before it is announced: past V8's in-object slack
 * tracking, which settles a class's object layout at its 7th construction.
 */
export const SETTLING_REQUESTS = 8;
/** A settling request that has no answer by then is given up: the server starts regardless. */
const SETTLING_TIMEOUT_MS = 2_000;

/**
 * Makes `SETTLING_REQUESTS` requests to `path` on a server that just started listening, one
 * after the other, each on its own connection and finished before the next, so every class a
 * request constructs (socket, `IncomingMessage`, `ServerResponse`, Hono's `Context`) has its
 * object layout settled from whole lives of its objects.
 *
 * Why (issue 31 item 1): V8 sizes a class's objects by what its first seven were given. If a
 * full collection runs after exactly six were made and all died (an idle server after six
 * requests: V8's memory reducer collects about 8 s after start), it settles the layout from
 * transitions the collection just cleared, too small for the rest: every later response then
 * lives in dictionary mode. A server in that state cost 1.3-1.5x the CPU a request on the
 * client mix for as long as it ran; the mix bench's demo server without the response cache,
 * which the bench had asked six requests before its idle wait, was that server (cache off / on
 * 0.65-0.78; with the layouts settled first, 0.97-1.08).
 *
 * Never fails: a request that errs or times out ends the settling, and the server is announced.
 */
export async function settleObjectLayouts(address: AddressInfo, path: string): Promise<void> {
  const host = connectable(address);
  for (let i = 0; i < SETTLING_REQUESTS; i += 1) {
    if (!(await oneRequest(host, address.port, path))) return;
  }
}

/** A loopback address for a server listening on every interface, else its own. */
function connectable(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '::1';
  return address.address;
}

/** One request on a connection of its own, read to its end; false if it failed. */
function oneRequest(host: string, port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sent = request(
      { host, port, path, agent: false, headers: { connection: 'close' } },
      (answer) => {
        answer.on('end', () => resolve(true));
        answer.on('error', () => resolve(false));
        answer.resume();
      },
    );
    sent.setTimeout(SETTLING_TIMEOUT_MS, () => sent.destroy());
    sent.on('error', () => resolve(false));
    sent.end();
  });
}
