// Issue 27 item 1, the inbound part: a large raw message (the control plane's message/rfc822
// form, or SMTP) is parsed on a render thread, never on the event loop that answers every other
// request. Proved without timing: mailparser, as loaded on this thread, is watched while the
// message is delivered; a render thread has its own copy of it, which this one cannot see.
import { createRequire } from 'node:module';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ApiError } from '../errors.ts';
import { parseMessage } from './parse-message.ts';
import { OFF_THREAD_MESSAGE_BYTES } from './parse-off-thread.ts';
import { RenderPool } from './render-pool.ts';

const MAILBOX = 'alice@acme.test';
const pool = new RenderPool();
afterAll(() => pool.close());
afterEach(() => vi.restoreAllMocks());

function world() {
  const deps = defaultDeps({ logError: () => {}, renderer: pool });
  const services = createServices(deps);
  services.directory.createMailbox({ address: MAILBOX });
  return { deps, services };
}

/** How many chunks mailparser (this thread's copy, the one the emulator imports) is fed. */
function watchMailparser(): { fed: () => number } {
  const { prototype } = createRequire(import.meta.url)('mailparser/lib/mail-parser.js') as {
    prototype: { _transform: (...args: unknown[]) => unknown };
  };
  const spy = vi.spyOn(prototype, '_transform');
  return { fed: () => spy.mock.calls.length };
}

/** A message of about `size` bytes: linked text (what textToHtml works on), HTML, a file. */
async function message(size: number): Promise<Buffer> {
  const line = 'Order details at https://shop.example.com/orders/12345 and www.example.org.\n';
  return new MailComposer({
    from: 'Jin Park <jin.park@northwind.test>',
    to: MAILBOX,
    subject: `About ${size} bytes`,
    text: line.repeat(Math.ceil(size / 2 / line.length)),
    html: `<p>${line.repeat(Math.ceil(size / 4 / line.length))}</p>`,
    attachments: [{ filename: 'notes.txt', content: 'a'.repeat(5000) }],
  })
    .compile()
    .build();
}

describe('a large raw message is parsed on a render thread (issue 27 item 1)', () => {
  it('parses a small one here, where a thread round trip would cost more (the watch sees it)', async () => {
    const { services } = world();
    const raw = await message(4 * 1024);
    const watch = watchMailparser();
    await services.inbound.injectRaw(raw, { mailbox: MAILBOX });
    expect(watch.fed()).toBeGreaterThan(0);
  });

  it('stores a large one as parsing it here would, without mailparser running on this thread', async () => {
    const { deps, services } = world();
    const raw = await message(4 * OFF_THREAD_MESSAGE_BYTES);
    expect(raw.length).toBeGreaterThan(OFF_THREAD_MESSAGE_BYTES);
    const copy = Buffer.from(raw); // the raw bytes move to the thread
    const watch = watchMailparser();
    const email = await services.inbound.injectRaw(raw, { mailbox: MAILBOX });
    expect(watch.fed()).toBe(0);
    vi.restoreAllMocks();
    const here = await parseMessage(copy);
    const stored = deps.store.emails.get(email.id)!;
    expect(stored.text).toBe(here.content.text);
    expect(stored.html).toBe(here.content.html);
    expect(stored.subject).toBe(here.content.subject);
    expect(stored.from).toEqual(here.content.from);
    expect(stored.attachments.map((a) => [a.name, a.contentType, a.size])).toEqual([
      ['notes.txt', 'text/plain', 5000],
    ]);
    const source = await services.emails.source(stored);
    expect(Buffer.compare(source.raw, copy)).toBe(0);
  });

  it('refuses a large message it cannot read with the same error as here, storing nothing', async () => {
    const { deps, services } = world();
    const raw = Buffer.from(
      `To: ${MAILBOX}\r\nSubject: no sender\r\n\r\n${'x'.repeat(200_000)}\r\n`,
    );
    const watch = watchMailparser();
    const error = await services.inbound.injectRaw(raw, { mailbox: MAILBOX }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(watch.fed()).toBe(0);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).toBody()).toEqual({
      code: 'invalid_field',
      message: 'The message has no From address.',
      field: 'body',
    });
    expect(deps.store.emails.count()).toBe(0);
  });
});
