import { Hono } from 'hono';
import { createApp, createServices, defaultDeps } from '../emulator/src/app.ts';
import { snippetOf } from '../emulator/src/domain/email-view.ts';
import type { Email } from '../emulator/src/domain/types.ts';
import { listen, ms, percentile, sampleLatency, throughput } from './measure.ts';

const EMAILS = 100_000;
const FOLDERS = ['inbox', 'inbox', 'inbox', 'archive', 'sent', 'spam', 'trash'] as const;

/** A deterministic pseudo-random source, so every run searches the same corpus. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** 3,000 made-up words with a Zipf-like frequency: a few common, many rare. */
function vocabulary(random: () => number): string[] {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'to',
    'vi',
    'ze',
    'pa',
    'qu',
    'ri',
    'do',
    'fe',
    'gu',
    'ha',
  ];
  const words = new Set<string>();
  while (words.size < 3000) {
    const n = 2 + Math.floor(random() * 3);
    words.add(
      Array.from({ length: n }, () => syllables[Math.floor(random() * syllables.length)]).join(''),
    );
  }
  return [...words];
}

/**
 * §4.2 at scale: 100k emails in one mailbox; search and list latency in process (through the
 * whole app: auth, parsing, SQL, JSON), and list throughput over HTTP beside a bare Hono route.
 */
export async function benchReadSide(print: (line: string) => void): Promise<void> {
  const random = seeded(42);
  const words = vocabulary(random);
  const pick = () => words[Math.floor(words.length * random() ** 3)] as string; // Zipf-ish
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Bench' });
  const mailbox = services.directory.createMailbox({ address: 'bench@acme.test' }).address;
  services.directory.grant(owner.id, mailbox);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'bench',
    scope: 'follow-owner',
  });

  const texts: string[] = [];
  const started = performance.now();
  deps.store.transaction(() => {
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < EMAILS; i += 1) {
      const subject = Array.from({ length: 5 }, pick).join(' ');
      const text = Array.from({ length: 120 }, pick).join(' ');
      if (i % 100 === 0) texts.push(`${subject} ${text}`);
      const receivedAt = new Date(base + i * 30_000).toISOString();
      const email: Email = {
        id: deps.ids.emailId(new Date(base + i * 30_000)),
        mailbox,
        folder: FOLDERS[i % FOLDERS.length] as Email['folder'],
        read: i % 3 === 0,
        starred: i % 11 === 0,
        from: { address: `${pick()}@partner.test`, name: `${pick()} ${pick()}` },
        to: [{ address: mailbox, name: null }],
        cc: [],
        bcc: [],
        replyTo: [],
        subject,
        snippet: snippetOf(text),
        text,
        html: null,
        preheader: null,
        messageId: `<bench-${i}@partner.test>`,
        inReplyTo: null,
        references: [],
        receivedAt,
        sentAt: receivedAt,
        attachmentCount: 0,
        attachments: [],
      };
      deps.store.emails.insert(email);
    }
  });
  print(
    `${EMAILS} emails (~1 KB of text each) inserted with the FTS5 index in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const app = createApp(deps, services);
  const headers = { Authorization: `Bearer ${secret}` };
  const get = (query: string) =>
    Promise.resolve(
      app.request(`/openapi/v1/emails?mailbox=${mailbox}&${query}`, { headers }),
    ).then((r) => r.arrayBuffer());

  const sample = (n: number) =>
    Array.from({ length: n }, () => texts[Math.floor(random() * texts.length)] as string);
  const wordsOf = (text: string) => text.split(' ');
  const single = sample(300).map((t) => {
    const w = wordsOf(t);
    return w[Math.floor(random() * w.length)] as string;
  });
  const pairs = sample(300).map((t) => {
    const w = wordsOf(t);
    return `${w[Math.floor(random() * w.length)]} ${w[Math.floor(random() * w.length)]}`;
  });
  const prefixes = sample(300).map((t) => {
    const w = wordsOf(t);
    return `${(w[Math.floor(random() * w.length)] as string).slice(0, 3)}*`;
  });
  print(
    `query mix: 300 single terms sampled from the corpus (e.g. "${single[0]}"), 300 two-term ANDs (e.g. "${pairs[0]}"), 300 3-letter prefixes (e.g. "${prefixes[0]}")`,
  );

  const report = async (label: string, queries: string[]) => {
    let i = 0;
    const latencies = await sampleLatency(queries.length * 2, () =>
      get(`q=${encodeURIComponent(queries[i++ % queries.length] as string)}&limit=25`),
    );
    print(`${label}: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
  };
  await report('search, single term (target p50 ≤ 2 ms, p99 ≤ 10 ms)', single);
  await report('search, two-term AND', pairs);
  await report('search, 3-letter prefix (reported apart)', prefixes);

  const first = await sampleLatency(1000, () => get('limit=25'));
  print(
    `list, first page of 25: p50 ${ms(percentile(first, 50))}, p99 ${ms(percentile(first, 99))}`,
  );
  const filtered = await sampleLatency(1000, () => get('limit=25&folder=archive&read=false'));
  print(
    `list, folder + read filter: p50 ${ms(percentile(filtered, 50))}, p99 ${ms(percentile(filtered, 99))}`,
  );
  let cursor: string | null = null;
  const deep = await sampleLatency(1000, async () => {
    const response = await app.request(
      `/openapi/v1/emails?mailbox=${mailbox}&limit=25${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
    );
    cursor = ((await response.json()) as { nextCursor: string | null }).nextCursor;
  });
  print(
    `list, walking pages with the cursor: p50 ${ms(percentile(deep, 50))}, p99 ${ms(percentile(deep, 99))}`,
  );

  const bare = new Hono().get('/ping', (c) => c.json({ ok: true }));
  const emulator = await listen(app);
  const baseline = await listen(bare);
  try {
    const list = await throughput(
      `${emulator.origin}/openapi/v1/emails?mailbox=${mailbox}&limit=25`,
      { seconds: 5, connections: 20, headers },
    );
    const ping = await throughput(`${baseline.origin}/ping`, { seconds: 5, connections: 20 });
    print(
      `HTTP GET /emails?limit=25 (real key auth, full summaries): ${list.rps.toFixed(0)} req/s, p99 ${list.p99Ms} ms, non-2xx ${list.non2xx}`,
    );
    print(
      `bare Hono JSON route: ${ping.rps.toFixed(0)} req/s; ratio ${(list.rps / ping.rps).toFixed(2)} (target ≥ 0.5)`,
    );
  } finally {
    await emulator.close();
    await baseline.close();
  }
}
