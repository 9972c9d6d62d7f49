/**
 * No error answer grows with the request (issue 12 item 5, D-62): a 3 MB owner ID once came back
 * as a 3 MB message. Every string the specs let a client send (parameters, body members, list
 * items, on the API and the control plane), every made-up member or parameter name, and a made-up
 * path, each sent huge and at its bound, gets an error body under 1 KiB, never a 5xx. The places
 * are generated from spec/openapi.yaml and spec/control.yaml, so a new field is covered here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError, quoteForMessage } from '../../emulator/src/errors.ts';
import { API_KEY, demoWorld, send, type Exchange, type World } from './limits/demo-world.ts';
import { callWith, CLEAN_UP, hasBase, type Slot } from './limits/requests.ts';
import { fieldOf, operationsOf, SPEC_FILES, stringPlaces } from './limits/spec-walk.ts';

/** The most an error body may take, whatever was sent. */
const BOUND = 1024;
/** Huge: far over every bound, well under the 25 MiB request limit (D-27). */
const HUGE_PARAMETER = 'p'.repeat(100_000);
const HUGE_BODY_VALUE = 'b'.repeat(1_000_000);

function expectBounded(answer: Exchange, what: string): void {
  expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(Buffer.byteLength(answer.text), `${what}: ${answer.text.slice(0, 300)}`).toBeLessThan(
    BOUND,
  );
  expect(answer.json, `${what}: the error shape`).toMatchObject({ code: expect.any(String) });
}

describe('quoteForMessage', () => {
  it('keeps a value of up to 100 code points as it is', () => {
    expect(quoteForMessage('own_alice')).toBe('own_alice');
    expect(quoteForMessage('😀'.repeat(100))).toBe('😀'.repeat(100));
  });

  it('cuts a longer value to 100 code points and an ellipsis, never inside a surrogate pair', () => {
    expect(quoteForMessage('x'.repeat(3_000_000))).toBe(`${'x'.repeat(100)}…`);
    expect(quoteForMessage('😀'.repeat(101))).toBe(`${'😀'.repeat(100)}…`);
  });

  it('bounds the field an ApiError names, however long the name the client made up', () => {
    const error = new ApiError('unknown_field', 'Unknown field.', 'n'.repeat(10_000));
    expect(error.field).toBe(`${'n'.repeat(100)}…`);
    expect(new ApiError('invalid_field', 'x', 'cc[2]').field).toBe('cc[2]');
  });
});

const PLACES = SPEC_FILES.flatMap((spec) => stringPlaces(spec)).filter((p) =>
  hasBase(p.operation.operationId),
);
const JSON_OPERATIONS = SPEC_FILES.flatMap((spec) => operationsOf(spec)).filter(
  (o) => o.body !== undefined && hasBase(o.operationId),
);
const QUERY_OPERATIONS = SPEC_FILES.flatMap((spec) => operationsOf(spec)).filter(
  (o) => o.parameters.some((p) => p.in === 'query') && hasBase(o.operationId),
);
const where = (slot: Slot) =>
  `${slot.operation.spec.name} ${slot.operation.method.toUpperCase()} ${slot.operation.template} ${fieldOf(slot.at)}`;

describe('error answers stay small whatever the client sends (D-62)', () => {
  let world: World;
  beforeAll(async () => {
    world = await demoWorld();
  });

  it('covers the strings of both specs, the 3 MB ownerId of a new webhook among them', () => {
    const names = PLACES.map(where);
    expect(names).toContain('control POST /webhooks ownerId');
    expect(names).toContain('openapi GET /emails/{emailId} emailId');
    expect(names).toContain('control POST /inbound attachments[0].name');
    expect(PLACES.length).toBeGreaterThan(80);
  });

  it('answers POST /_mailtwin/v1/webhooks with a 3 MB ownerId in under 1 KiB', async () => {
    const slot = PLACES.find((p) => where(p) === 'control POST /webhooks ownerId') as Slot;
    const answer = await send(world, callWith(world, slot, 'o'.repeat(3_000_000), 'webhook'));
    expect(answer.status).toBe(400);
    expectBounded(answer, '3 MB ownerId');
  });

  it.each(PLACES.map((slot, i) => ({ name: where(slot), slot, i })))(
    '$name: huge, and exactly at its bound',
    async ({ slot, i }) => {
      const huge = slot.in === 'body' ? HUGE_BODY_VALUE : HUGE_PARAMETER;
      const values = [huge];
      if (typeof slot.schema.maxLength === 'number') values.push('q'.repeat(slot.schema.maxLength));
      for (const [n, value] of values.entries()) {
        const answer = await send(world, callWith(world, slot, value, `e${i}v${n}`));
        const clean = CLEAN_UP[slot.operation.operationId];
        if (clean !== undefined) await send(world, clean);
        expectBounded(answer, `${value.length} code points`);
      }
    },
  );

  it.each(
    JSON_OPERATIONS.map((operation) => ({
      name: `${operation.spec.name} ${operation.operationId}`,
      operation,
    })),
  )('$name: a made-up body member with a huge name', async ({ operation }) => {
    const name = 'm'.repeat(100_000);
    const slot: Slot = { operation, in: 'body', at: [name] };
    expectBounded(await send(world, callWith(world, slot, 1, 'member')), 'huge member name');
  });

  it.each(
    QUERY_OPERATIONS.map((operation) => ({
      name: `${operation.spec.name} ${operation.operationId}`,
      operation,
    })),
  )('$name: a made-up query parameter with a huge name', async ({ operation }) => {
    const slot: Slot = { operation, in: 'query', at: ['x'.repeat(50_000)] };
    expectBounded(await send(world, callWith(world, slot, '1', 'query')), 'huge query name');
  });

  it('answers a huge unknown path, and a huge form field name of an upload, in under 1 KiB', async () => {
    for (const base of ['/openapi/v1', '/_mailtwin/v1'] as const) {
      const answer = await send(world, { base, method: 'get', path: `/${'u'.repeat(50_000)}` });
      expect(answer.status).toBe(404);
      expectBounded(answer, `${base} unknown path`);
    }
    const form = new FormData();
    form.append('f'.repeat(100_000), 'text');
    const upload = await world.app.request('/openapi/v1/attachments', {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}` },
      body: form,
    });
    const text = await upload.text();
    expect(upload.status).toBe(400);
    expect(Buffer.byteLength(text), text.slice(0, 200)).toBeLessThan(BOUND);
  });

  it('answers a webhook URL whose host is 2,000 characters long in under 1 KiB', async () => {
    const answer = await send(world, {
      base: '/_mailtwin/v1',
      method: 'post',
      path: '/webhooks',
      body: {
        ownerId: 'own_acme',
        url: `https://${'h'.repeat(2000)}.local/`,
        scope: 'follow-owner',
      },
    });
    expect(answer.status).toBe(400);
    expectBounded(answer, 'long host');
  });
});
