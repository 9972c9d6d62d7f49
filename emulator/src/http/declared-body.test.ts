import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serveWithJsonErrors } from './node-server.ts';

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** Serves `app` on a real port (the adapter path), bodies up to `maxBodyBytes` read as one buffer. */
function listen(app: Hono, maxBodyBytes: number): Promise<number> {
  return new Promise((resolve) => {
    server = serveWithJsonErrors(
      { fetch: app.fetch, port: 0, hostname: '127.0.0.1', maxBodyBytes },
      (info: AddressInfo) => resolve(info.port),
    );
  });
}

/** POSTs `body` in 64 KiB writes, with its Content-Length, or chunked when `chunked`. */
function post(port: number, body: Uint8Array, chunked = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/',
        headers: chunked ? {} : { 'Content-Length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      },
    );
    req.on('error', reject);
    for (let at = 0; at < body.length; at += 65_536) req.write(body.subarray(at, at + 65_536));
    req.end();
  });
}

/** An app answering what it read: the ArrayBuffer's length and a checksum of its bytes. */
function echoApp(read: 'arrayBuffer' | 'text'): Hono {
  const app = new Hono();
  app.post('/', async (c) => {
    if (read === 'text') return c.text(String((await c.req.text()).length));
    const buffer = await c.req.arrayBuffer();
    const bytes = new Uint8Array(buffer);
    let sum = 0;
    for (let i = 0; i < bytes.length; i += 4099) sum = (sum + (bytes[i] ?? 0) * i) % 1_000_003;
    return c.text(`${buffer.byteLength} ${sum}`);
  });
  return app;
}

function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) % 251;
  return bytes;
}

function checksum(bytes: Uint8Array): string {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 4099) sum = (sum + (bytes[i] ?? 0) * i) % 1_000_003;
  return `${bytes.length} ${sum}`;
}

/**
 * Watches the two large copies the adapter made of a body (issue 27 item 1): joining its chunks
 * (`Buffer.concat`) and copying the result for `arrayBuffer()` (`ArrayBuffer#slice`). Returns
 * the largest of each, in bytes.
 */
function watchCopies() {
  const largest = { concat: 0, slice: 0 };
  const concat = Buffer.concat.bind(Buffer);
  const concatSpy = vi.spyOn(Buffer, 'concat').mockImplementation((list, total) => {
    const joined = concat(list, total);
    largest.concat = Math.max(largest.concat, joined.length);
    return joined;
  });
  const slice = ArrayBuffer.prototype.slice;
  const sliceSpy = vi.spyOn(ArrayBuffer.prototype, 'slice').mockImplementation(function (
    this: ArrayBuffer,
    begin?: number,
    end?: number,
  ) {
    const part = slice.call(this, begin, end);
    largest.slice = Math.max(largest.slice, part.byteLength);
    return part;
  });
  return {
    largest,
    restore: () => {
      concatSpy.mockRestore();
      sliceSpy.mockRestore();
    },
  };
}

describe('a body with a Content-Length is read into one buffer as it arrives (issue 27 item 1)', () => {
  it('reads a 24 MB body with no step that joins or copies the whole body', async () => {
    const port = await listen(echoApp('arrayBuffer'), 25 * 1024 * 1024);
    const body = pattern(24_000_000);
    const copies = watchCopies();
    try {
      expect(await post(port, body)).toBe(checksum(body));
    } finally {
      copies.restore();
    }
    // Before: Buffer.concat of 24,000,000 bytes, then ArrayBuffer#slice of as many. (The
    // client's own joins of the small answer are all that is left.)
    expect(copies.largest.concat).toBeLessThan(65_536);
    expect(copies.largest.slice).toBeLessThan(65_536);
  });

  it('decodes text from the same buffer', async () => {
    const port = await listen(echoApp('text'), 1024 * 1024);
    const body = new TextEncoder().encode('é'.repeat(300_000));
    expect(await post(port, body)).toBe('300000');
  });

  it('leaves a body over the limit, and a chunked one, to the adapter, which still reads them', async () => {
    const port = await listen(echoApp('arrayBuffer'), 100_000);
    const body = pattern(200_000);
    expect(await post(port, body)).toBe(checksum(body));
    expect(await post(port, body, true)).toBe(checksum(body));
  });

  it('refuses a second read of the same body, as a Request does', async () => {
    const app = new Hono();
    app.post('/', async (c) => {
      await c.req.raw.arrayBuffer();
      return c.text(
        await c.req.raw.text().then(
          () => 'read twice',
          (error: unknown) => String(error),
        ),
      );
    });
    const port = await listen(app, 1024 * 1024);
    expect(await post(port, pattern(1000))).toBe('TypeError: Body is unusable');
  });
});
