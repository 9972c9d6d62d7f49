import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { htmlToPlainText, markdownToHtml } from '../domain/markdown.ts';
import { composeMime, type OutgoingMessage } from './compose.ts';
import { renderBody, type BodyJob, type RenderStages } from './render-body.ts';
import { RenderPool, RenderTimeout } from './render-pool.ts';

const MAX = 5 * 1024 * 1024;

const message: BodyJob['message'] = {
  from: { address: 'alice@acme.test', name: 'Alice' },
  to: [{ address: 'bob@acme.test', name: null }],
  cc: [],
  subject: 'Hello',
  messageId: '<m1@acme.test>',
  inReplyTo: null,
  references: [],
  date: new Date('2026-11-20T10:00:00Z'),
  attachments: [],
};

const job = (over: Partial<BodyJob>): BodyJob => ({
  markdown: null,
  text: null,
  html: null,
  preheader: null,
  message,
  maxBytes: MAX,
  ...over,
});

/** The real stages, each a spy, to see which of them a render reached. */
function spiedStages() {
  return {
    markdownToHtml: vi.fn(markdownToHtml),
    htmlToPlainText: vi.fn(htmlToPlainText),
    composeMime: vi.fn(composeMime),
  } satisfies RenderStages;
}

describe('the 5 MiB of D-42, judged before the expensive work', () => {
  it('composes no message at least as large as its parts: every encoding keeps every byte', async () => {
    // The lower bound the early refusals rest on: encoded size >= UTF-8 bytes of the parts
    // plus the raw bytes of the files, whatever the characters, line ends and line lengths.
    const part = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({
        unit: fc.constantFrom('a', ' ', '\r', '\n', '\r\n', '=', '.', 'é', '😀', '\0'),
        maxLength: 400,
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(part, { nil: null }),
        fc.option(part, { nil: null }),
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 3 }),
        async (text, html, files) => {
          const built: OutgoingMessage = {
            ...message,
            text,
            html,
            attachments: files.map((bytes, i) => ({
              name: `f${i}.txt`,
              contentType: i % 2 === 0 ? 'text/plain' : 'application/pdf',
              bytes,
            })),
          };
          const raw = await composeMime(built);
          const bound =
            Buffer.byteLength(text ?? '') +
            Buffer.byteLength(html ?? '') +
            files.reduce((sum, f) => sum + f.length, 0);
          expect(raw.length).toBeGreaterThanOrEqual(bound);
        },
      ),
      { numRuns: 200, seed: 27 },
    );
  });

  it('refuses an HTML body over 5 MiB without composing it or deriving its text', async () => {
    const stages = spiedStages();
    const result = await renderBody(job({ html: '<b>x</b>'.repeat(MAX / 8 + 1) }), stages);
    expect(result).toMatchObject({ ok: false, atLeast: true, bodyAlone: true, bytes: MAX + 8 });
    expect(stages.composeMime).not.toHaveBeenCalled();
    expect(stages.htmlToPlainText).not.toHaveBeenCalled();
  });

  it('refuses a text body that variables make larger than 5 MiB without filling it in', async () => {
    const stages = spiedStages();
    // 2 million placeholders of a 1 KiB value: 2 GB once filled, more than a string can hold.
    const template = '{{v}}'.repeat(2_000_000);
    const result = await renderBody(
      job({ text: { template, values: { v: 'x'.repeat(1024) } } }),
      stages,
    );
    expect(result).toMatchObject({ ok: false, atLeast: true, bytes: 2_000_000 * 1024 });
    expect(stages.composeMime).not.toHaveBeenCalled();
  });

  it('refuses Markdown whose sanitized HTML exceeds the limit before deriving the text part or composing', async () => {
    const stages = spiedStages();
    const limit = 64 * 1024; // the rule is the same at 5 MiB, only slower to show
    const markdown = '<b>x</b>'.repeat(limit / 8 + 1);
    const result = await renderBody(
      job({ markdown: { template: markdown, values: {} }, maxBytes: limit }),
      stages,
    );
    expect(result).toMatchObject({ ok: false, atLeast: true, bodyAlone: true });
    expect(stages.markdownToHtml).toHaveBeenCalledTimes(1);
    expect(stages.htmlToPlainText).not.toHaveBeenCalled();
    expect(stages.composeMime).not.toHaveBeenCalled();
  });

  it('renders Markdown larger than 5 MiB that renders small: the source is no lower bound', async () => {
    const markdown = `Hello\n\n<!-- ${'x'.repeat(MAX + 10)} -->\n`;
    const result = await renderBody(job({ markdown: { template: markdown, values: {} } }));
    expect(result).toMatchObject({ ok: true, text: 'Hello' });
  });

  it('refuses no message that fits: a message of exactly the limit is accepted, one byte over refused', async () => {
    for (const over of [
      { text: { template: 'Hi {{name}},\n'.repeat(3000), values: { name: 'Bob' } } },
      { markdown: { template: '* **item** [x](https://a.test)\n'.repeat(2000), values: {} } },
      { html: '<p>Hello</p>\n'.repeat(4000), preheader: { template: 'Read me', values: {} } },
    ] satisfies Partial<BodyJob>[]) {
      const measured = await renderBody(job({ ...over, maxBytes: Infinity }));
      if (!measured.ok) throw new Error('refused without a limit');
      const size = measured.raw.length;
      expect((await renderBody(job({ ...over, maxBytes: size }))).ok).toBe(true);
      expect(await renderBody(job({ ...over, maxBytes: size - 1 }))).toMatchObject({
        ok: false,
        atLeast: false,
        bytes: size,
      });
    }
  });
});

describe('the render pool', () => {
  it('escapes the preheader it hides at the start of the HTML part, apostrophes included', async () => {
    const result = await renderBody(
      job({
        html: '<p>Body</p>',
        preheader: { template: `Tom's <b>"deal"</b> & more`, values: {} },
      }),
    );
    expect(result.ok && result.html).toBe(
      '<div style="display:none;max-height:0;overflow:hidden;mso-hide:all" aria-hidden="true">' +
        'Tom&#39;s &lt;b&gt;&quot;deal&quot;&lt;/b&gt; &amp; more</div><p>Body</p>',
    );
    expect(result.ok && result.preheader).toBe(`Tom's <b>"deal"</b> & more`);
  });

  it('gives the same message on a worker thread as on the calling thread', async () => {
    const pool = new RenderPool(1, 0); // every body goes to the thread
    try {
      const same = job({
        markdown: {
          template:
            '# Hi {{name}}\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n<script>x</script>[l](https://a.test)',
          values: { name: 'Bob' },
        },
        preheader: { template: 'Read me', values: {} },
        message: {
          ...message,
          attachments: [
            { name: 'a.bin', contentType: 'application/pdf', bytes: new Uint8Array(5000).fill(3) },
          ],
        },
      });
      const here = await renderBody(same);
      const there = await pool.render(same);
      expect(pool.threadCount).toBe(1);
      // Each thread draws its own boundary base (compose.ts), whose length may fold a header
      // line differently; all else is identical.
      const boundaryFree = (r: typeof here) =>
        r.ok
          ? {
              ...r,
              raw: Buffer.from(r.raw)
                .toString('latin1')
                .replace(/_NmP-[0-9a-f]+-/g, '')
                .replace(/;\r\n\s+boundary/g, '; boundary'),
            }
          : r;
      expect(boundaryFree(there)).toEqual(boundaryFree(here));
      expect(Buffer.isBuffer(there.ok && there.raw)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('renders a small body on the calling thread, starting no thread', async () => {
    const pool = new RenderPool();
    const result = await pool.render(
      job({ text: { template: 'Hi {{email}}', values: { email: 'bob@acme.test' } } }),
    );
    expect(result).toMatchObject({ ok: true, text: 'Hi bob@acme.test' });
    expect(pool.threadCount).toBe(0);
  });

  it('sends a small template whose variables make it large to a thread', async () => {
    const pool = new RenderPool(1);
    try {
      const result = await pool.render(
        job({ text: { template: '{{v}}{{v}}', values: { v: 'y'.repeat(100_000) } } }),
      );
      expect(result.ok).toBe(true);
      expect(pool.threadCount).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe('the render budget (D-67)', () => {
  it('refuses a render that runs past the budget with RenderTimeout and replaces its thread', async () => {
    const pool = new RenderPool(1, 0, 50); // every body to the thread; 50 ms of budget
    try {
      // Enough Markdown tags to take far longer than 50 ms on any machine.
      const slow = pool.render(
        job({ markdown: { template: '<b>x</b>'.repeat(200_000), values: {} } }),
      );
      await expect(slow).rejects.toBeInstanceOf(RenderTimeout);
      expect(pool.threadCount).toBe(0); // ended, not left rendering
    } finally {
      await pool.close();
    }
  }, 60_000);
});
