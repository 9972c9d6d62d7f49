import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, toApiError } from '../errors.ts';
import { requestBodyLimit } from './request-body-limit.ts';

/** A route behind a 100-byte limit, over a real socket, echoing the length of what it read. */
const app = new Hono()
  .use(
    '*',
    requestBodyLimit({
      maxSize: 100,
      onError: () => {
        throw new ApiError('request_too_large', 'Over 100 bytes.');
      },
    }),
  )
  .post('/', async (c) => c.json({ read: (await c.req.text()).length }))
  .onError((error, c) => {
    const { apiError } = toApiError(error);
    return c.json(apiError.toBody(), apiError.status);
  });
let origin = '';
let server: ReturnType<typeof serve>;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      origin = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A body sent in chunks, without Content-Length. */
const chunked = (text: string) => ({
  body: new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  }),
  duplex: 'half' as const,
});

const post = async (init: RequestInit) => {
  const response = await fetch(origin, { method: 'POST', ...init });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('the request body limit', () => {
  it('refuses a declared length over the limit with 413 request_too_large', async () => {
    expect(await post({ body: 'x'.repeat(101) })).toMatchObject({
      status: 413,
      body: { code: 'request_too_large' },
    });
  });

  it('lets a declared length at the limit through, its body read whole by the route', async () => {
    expect(await post({ body: 'x'.repeat(100) })).toEqual({ status: 200, body: { read: 100 } });
  });

  it('counts a body sent without a length: 413 over the limit, read whole under it', async () => {
    expect((await post(chunked('x'.repeat(101)))).status).toBe(413);
    expect(await post(chunked('x'.repeat(60)))).toEqual({ status: 200, body: { read: 60 } });
  });
});
