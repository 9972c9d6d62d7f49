import { createApp, createServices, defaultDeps } from '../emulator/src/app.ts';
import { fillMailbox, seeded, vocabulary } from './corpus.ts';
import { ms, percentile, sampleLatency } from './measure.ts';

const EMAILS = 100_000;

/**
 * §4.2 at scale: 100k emails in one mailbox; search and list latency in process, through the
 * whole app (auth, parsing, SQL, JSON). Throughput over HTTP is in http-list.bench.ts.
 */
export async function benchReadSide(print: (line: string) => void): Promise<void> {
  const random = seeded(42);
  const { pick } = vocabulary(random);
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

  const started = performance.now();
  const texts = fillMailbox(deps.store, deps.ids, mailbox, EMAILS, pick);
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

  // Each search is answered afresh: a write before it (untimed) empties the response and page
  // caches, which would otherwise answer the mix's repeats without searching.
  let writes = 0;
  const fresh = () => deps.store.settings.set('bench-write', String((writes += 1)));
  const report = async (label: string, queries: string[]) => {
    let i = 0;
    const latencies: number[] = [];
    for (let n = 0; n < queries.length * 2; n += 1) {
      fresh();
      const start = performance.now();
      await get(`q=${encodeURIComponent(queries[i++ % queries.length] as string)}&limit=25`);
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    print(`${label}: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`);
  };
  await report('search, single term (target p50 ≤ 2 ms, p99 ≤ 10 ms)', single);
  await report('search, two-term AND (target p99 ≤ 10 ms)', pairs);
  await report('search, 3-letter prefix via the FTS5 prefix index (target p99 ≤ 10 ms)', prefixes);

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
    `list, walking pages with the cursor (each page new, so never a repeated query): p50 ${ms(percentile(deep, 50))}, p99 ${ms(percentile(deep, 99))}`,
  );
  print(
    `process RSS with these ${EMAILS} emails in memory: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
  );
}
