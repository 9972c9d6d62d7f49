import { describe, expect, it } from 'vitest';
import { NoAnswer } from './answer-errors.ts';
import { ApiClient } from './client.ts';
import type { ClientPolicy } from './policy.ts';
import type { Exchange } from './exchange.ts';
import { RateLimiter } from './rate-limit.ts';
import { SafetyRefusal, UndeclaredWrite } from './safety.ts';
import type { SpecValidator } from '../contract/spec-validator.ts';
import type { Target } from './target.ts';

/** A target that records what reaches it and answers 200 {}. */
function fakeTarget(kind: Target['kind'] = 'live') {
  const sent: string[] = [];
  const target: Target = {
    kind,
    baseUrl: 'https://mail.example.com/openapi/v1',
    origin: 'https://mail.example.com',
    apiKey: 'sk-x',
    control: { baseUrl: 'https://mail.example.com/_mailtwin/v1', token: 'ct' },
    offers: new Set(),
    deliveryTimeoutMs: 60_000,
    fetch: async (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response('{}', { headers: { 'Content-Type': 'application/json' } });
    },
  };
  return { target, sent };
}

const VALIDATOR = { judge: () => ({ violations: [] }) } as unknown as SpecValidator;

function client(policy: ClientPolicy, kind: Target['kind'] = 'live') {
  const { target, sent } = fakeTarget(kind);
  return { api: new ApiClient(target, VALIDATOR, [], policy), sent };
}

describe('ApiClient policy', () => {
  it('fails an undeclared write before sending it', async () => {
    const { api, sent } = client({ writes: false });
    await expect(api.request({ method: 'PATCH', path: '/emails/e1', json: {} })).rejects.toThrow(
      UndeclaredWrite,
    );
    await expect(api.request({ method: 'DELETE', path: '/emails/e1' })).rejects.toThrow(
      /DELETE \/openapi\/v1\/emails\/e1 but does not declare needs: \['destructive'\]/,
    );
    expect(sent).toEqual([]);
  });

  it('lets a check without destructive read, and write to the control plane', async () => {
    const { api, sent } = client({ writes: false });
    await api.request({ path: '/mailboxes' });
    await api.request({
      method: 'POST',
      path: 'https://mail.example.com/_mailtwin/v1/owners',
      absolute: true,
      json: { name: 'x' },
    });
    expect(sent).toEqual(['GET /openapi/v1/mailboxes', 'POST /_mailtwin/v1/owners']);
  });

  it('counts an absolute write outside the control plane as a write', async () => {
    const { api, sent } = client({ writes: false });
    await expect(
      api.request({ method: 'POST', path: 'https://mail.example.com/elsewhere', absolute: true }),
    ).rejects.toThrow(UndeclaredWrite);
    expect(sent).toEqual([]);
  });

  it('refuses mail to an address outside the given mailboxes, before sending', async () => {
    const { api, sent } = client({ writes: true, mailboxes: ['ops@vendor.example'] });
    const refusal = api.request({
      method: 'POST',
      path: '/emails/send',
      json: { from: 'ops@vendor.example', to: 'someone@customer.example', text: 'x' },
    });
    await expect(refusal).rejects.toThrow(SafetyRefusal);
    await expect(refusal).rejects.toThrow(/someone@customer\.example/);
    await api.request({
      method: 'POST',
      path: '/emails/send',
      json: { from: 'ops@vendor.example', to: 'ops@vendor.example', text: 'x' },
    });
    expect(sent).toEqual(['POST /openapi/v1/emails/send']);
  });

  it('does not look at recipients without a mailbox list (the in-process emulator)', async () => {
    const { api, sent } = client({ writes: true }, 'emulator');
    await api.request({ method: 'POST', path: '/emails/send', json: { to: 'a@b.example' } });
    expect(sent).toHaveLength(1);
  });

  it('counts every request it sends, and none it refused', async () => {
    const counter = { requests: 0 };
    const { api } = client({ writes: false, counter });
    await api.request({ path: '/mailboxes' });
    await api.request({ path: 'https://mail.example.com/openapi/docs', absolute: true });
    await api.request({ method: 'PATCH', path: '/emails/e' }).catch(() => {});
    expect(counter.requests).toBe(2);
  });

  it('waits for the rate limiter before each request', async () => {
    const sleeps: number[] = [];
    const limiter = new RateLimiter(
      10,
      () => 0,
      async (ms) => {
        sleeps.push(ms);
      },
    );
    const { api } = client({ writes: false, limiter });
    for (let i = 0; i < 3; i += 1) await api.request({ path: '/mailboxes' });
    expect(sleeps).toEqual([100, 200]);
  });
});

describe('ApiClient deadline (--request-timeout)', () => {
  /** A target that sends its status and headers at once but a body that never ends. */
  function stalling(received: Request[]): Target {
    const { target } = fakeTarget();
    return {
      ...target,
      fetch: async (request) => {
        received.push(request);
        const body = new ReadableStream({ start: () => {} });
        return new Response(body, { headers: { 'Content-Type': 'application/json' } });
      },
    };
  }

  it('fails a request whose body never completes with NoAnswer naming it, and aborts it', async () => {
    const received: Request[] = [];
    const log: Exchange[] = [];
    const api = new ApiClient(stalling(received), VALIDATOR, log, {
      writes: true,
      requestTimeoutMs: 50,
    });
    // Without the time-out the body's read never ends and the test's own time-out fails it.
    const failure = api.request({ method: 'PATCH', path: '/emails/e1', body: 'null' });
    await expect(failure).rejects.toThrow(NoAnswer);
    await expect(failure).rejects.toThrow(
      'no complete answer to PATCH https://mail.example.com/openapi/v1/emails/e1 within 50 ms',
    );
    expect(
      received.map((request) => request.signal.aborted),
      'its request was aborted',
    ).toEqual([true]);
    expect(log[0]?.response, 'the exchange is logged without a response').toBeUndefined();
  });

  it('lets a prompt answer through untouched', async () => {
    const { api } = client({ writes: true, requestTimeoutMs: 1_000 });
    expect((await api.request({ path: '/mailboxes' })).status).toBe(200);
  });
});

describe('ApiClient on a kept-alive connection the target closed', () => {
  /** A target whose first fetch fails as undici does when the server closed the socket. */
  function closingOnce() {
    const { target, sent } = fakeTarget();
    let failed = false;
    const inner = target.fetch;
    target.fetch = async (request) => {
      if (!failed) {
        failed = true;
        sent.push(`reset ${request.method}`);
        throw new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } });
      }
      return inner(request);
    };
    return { api: new ApiClient(target, VALIDATOR, [], { writes: true }), sent };
  }

  it('sends a GET again, once, when the connection closed before any answer', async () => {
    const { api, sent } = closingOnce();
    expect((await api.request({ path: '/mailboxes' })).status).toBe(200);
    expect(sent).toEqual(['reset GET', 'GET /openapi/v1/mailboxes']);
  });

  it('never sends a write again: the target may have carried it out', async () => {
    const { api, sent } = closingOnce();
    await expect(
      api.request({ method: 'POST', path: '/emails/send', json: { to: 'x@y.test' } }),
    ).rejects.toThrow(/fetch failed/);
    expect(sent).toEqual(['reset POST']);
  });
});

describe('ApiClient uploads left on the target', () => {
  /** A target that stores an upload (201 with its id) and refuses one (400). */
  function storingTarget() {
    const { target } = fakeTarget();
    let stored = 0;
    const storing: Target = {
      ...target,
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        if (path.endsWith('/attachments') && request.method === 'POST' && stored++ === 0)
          return Response.json({ id: 'att_1', name: 'a.txt', size: 3 }, { status: 201 });
        if (path.endsWith('/attachments'))
          return Response.json({ code: 'invalid_field', message: 'no file' }, { status: 400 });
        return Response.json({ id: 'em_1' }, { status: 201 });
      },
    };
    return storing;
  }

  it('lists every file the target stored, and no refused upload or other write', async () => {
    const uploads: NonNullable<ClientPolicy['uploads']> = [];
    const api = new ApiClient(storingTarget(), VALIDATOR, [], { writes: true, uploads });
    const form = () => {
      const data = new FormData();
      data.append('file', new Blob(['abc']), 'a.txt');
      return data;
    };
    await api.request({ method: 'POST', path: '/attachments', body: form() });
    await api.request({ method: 'POST', path: '/attachments', body: form() });
    await api.request({ method: 'POST', path: '/emails/send', json: {} });
    expect(uploads).toEqual([{ id: 'att_1', name: 'a.txt', size: 3 }]);
  });
});
