import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { packagePath } from '../package-root.ts';
import { bootDemo } from '../test-helpers/binding-app.ts';
import type { Binding } from './binding.ts';
import { OFF_THREAD_BYTES } from './dialect.ts';
import { loadBindingFile } from './load.ts';

const API = '/openapi/v1';

/** all-renames.yaml, with the preheader sent as `previewText`. */
function binding(): Binding {
  const b = loadBindingFile(join(packagePath('tests/variants/bindings'), 'all-renames.yaml'));
  return { ...b, send: { preheader: 'previewText' } };
}

/** A send body of more than OFF_THREAD_BYTES whose text is a template, marked so it is known. */
const TEMPLATE = '{{a}} '.repeat(20_000);

/** The strings JSON.parse is given on this thread, the event loop's, while `run` runs. */
async function parsedDuring<T>(run: () => Promise<T>): Promise<{ result: T; parsed: string[] }> {
  const parsed: string[] = [];
  const parse = JSON.parse;
  const spy = vi
    .spyOn(JSON, 'parse')
    .mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsed.push(text);
      return parse(text, reviver);
    });
  try {
    return { result: await run(), parsed };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('a large body under a binding is renamed on a render thread (issue 27 item 1)', () => {
  it('takes the bound preheader of a large send without parsing the body on the event loop', async () => {
    expect(TEMPLATE.length).toBeGreaterThan(OFF_THREAD_BYTES);
    const app = await bootDemo(binding());
    const { result: sent, parsed } = await parsedDuring(() =>
      app.call('POST', `${API}/emails/send`, {
        from: 'billing@acme.test',
        to: 'x@example.test',
        subject: 'Large',
        text: TEMPLATE,
        variables: { a: 'b' },
        previewText: 'Seen first',
      }),
    );
    expect(sent.status, await sent.clone().text()).toBe(202);
    // Before: the dialect parsed the whole request here (and wrote it back as JSON).
    expect(parsed.filter((text) => text.includes('{{a}} {{a}}'))).toEqual([]);
    const { id } = (await sent.json()) as { id: string };
    const read = (await (await app.call('GET', `${API}/emails/${id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(read.preheader).toBe('Seen first');
    expect(String(read.text).trim()).toBe('b '.repeat(20_000).trim());
  });

  it("answers a large send in turns of its own: the route's encoding, the read, the renaming", async () => {
    const app = await bootDemo(binding());
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const text = 'word '.repeat(40_000); // a 200 kB answer, over OFF_THREAD_BYTES
    // The route encodes the created email's detail (its text inside) to bytes...
    const encodedIn: number[] = [];
    const from = Buffer.from.bind(Buffer) as (...args: unknown[]) => Buffer;
    vi.spyOn(Buffer, 'from').mockImplementation(((...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes(text)) encodedIn.push(turn);
      return from(...args);
    }) as typeof Buffer.from);
    // ...which the dialect reads back and parses to rename.
    const parsedIn: number[] = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((input: string, reviver) => {
      if (input.includes(text) && input.includes('"receivedAt"')) parsedIn.push(turn);
      return parse(input, reviver);
    });
    const sent = await app.call('POST', `${API}/emails/send`, {
      from: 'billing@acme.test',
      to: 'x@example.test',
      subject: 'Large',
      text,
    });
    counting = false;
    vi.restoreAllMocks();
    expect(sent.status, await sent.clone().text()).toBe(202);
    expect(encodedIn).toHaveLength(1);
    expect(parsedIn).toHaveLength(1);
    // One turn to read and decode the answer, the next to parse, rename and encode it again.
    expect(parsedIn[0]).toBeGreaterThanOrEqual((encodedIn[0] as number) + 2);
  });

  it("refuses the emulator's own preheader name in a large body as unknown, named as sent (D-31)", async () => {
    const app = await bootDemo(binding());
    const refused = await app.call('POST', `${API}/emails/send`, {
      from: 'billing@acme.test',
      to: 'x@example.test',
      subject: 'Large',
      text: TEMPLATE,
      variables: { a: 'b' },
      preheader: 'Seen first',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'unknown_field', field: 'preheader' });
  });

  it('leaves a large body that is not JSON for the route to refuse as invalid_json', async () => {
    const app = await bootDemo(binding());
    const refused = await app.call(
      'POST',
      `${API}/emails/send`,
      `{"text": "${'x'.repeat(100_000)}`,
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_json' });
  });
});
