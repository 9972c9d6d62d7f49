import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices, defaultDeps } from '../emulator/src/app.ts';
import { openStore } from '../emulator/src/store/store.ts';
import { fillMailbox, seeded, vocabulary } from './corpus.ts';
import autocannon from 'autocannon';
import { throughput } from './measure.ts';
import { rssMbOf, startChild, type ChildServer } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAILTWIN = join(ROOT, 'bin/mailtwin.js');
const PRISM = join(ROOT, 'node_modules/.bin/prism');
const SAME_BYTES = join(ROOT, 'bench/same-bytes-server.ts');
const DEMO_AUTH = { Authorization: 'Bearer sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU' };
const LOAD = { seconds: 10, connections: 50 };

type Row = { label: string; rps: number; p99Ms: number; non2xx: number };

/** Starts a bare Hono route serving exactly what the emulator answered at `url`. */
async function sameBytesServer(url: string, headers: Record<string, string>, dir: string) {
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  const file = join(dir, `body-${Date.now()}.bin`);
  writeFileSync(file, body);
  const type = response.headers.get('content-type') ?? 'application/json';
  const server = await startChild(
    process.execPath,
    ['--import', 'tsx', SAME_BYTES, '{port}', file, type],
    '/',
  );
  return { server, bytes: body.length };
}

/** Loads each server in turn, twice, interleaved, so slow phases of a busy machine hit all. */
async function interleaved(
  targets: { label: string; url: string; headers: Record<string, string> }[],
  seconds: number,
): Promise<Map<string, Row[]>> {
  const rows = new Map<string, Row[]>(targets.map((t) => [t.label, []]));
  for (let round = 0; round < 2; round += 1) {
    for (const t of targets) {
      const r = await throughput(t.url, { ...LOAD, seconds, headers: t.headers });
      rows.get(t.label)?.push({ label: t.label, ...r });
    }
  }
  return rows;
}

const fmt = (rows: Row[]) =>
  rows.map((r) => `${r.rps.toFixed(0)} req/s p99 ${r.p99Ms} ms`).join(' / ') +
  (rows.some((r) => r.non2xx > 0) ? ` (non-2xx: ${rows.map((r) => r.non2xx).join('/')})` : '');
const mean = (rows: Row[] | undefined) =>
  (rows ?? []).reduce((s, r) => s + r.rps, 0) / Math.max(1, rows?.length ?? 0);

/**
 * Issue 18 item 1: `GET /emails?mailbox=hello@acme.test&limit=25` with the demo key against
 * `mailtwin serve`, a bare Hono route serving the same bytes, and `prism mock` of the spec,
 * each in its own process, autocannon (50 connections) in this one, all on the same cores.
 */
export async function benchHttpList(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-bench-'));
  const children: ChildServer[] = [];
  try {
    const emulator = await startChild(
      process.execPath,
      [MAILTWIN, 'serve', '--port', '{port}', '--no-smtp'],
      '/openapi/v1/mailboxes',
      DEMO_AUTH,
    );
    children.push(emulator);
    const path = '/openapi/v1/emails?mailbox=hello@acme.test&limit=25';
    const same = await sameBytesServer(`${emulator.origin}${path}`, DEMO_AUTH, dir);
    children.push(same.server);
    const prism = await startChild(
      PRISM,
      ['mock', join(ROOT, 'spec/openapi.yaml'), '-p', '{port}', '-h', '127.0.0.1', '-v', 'error'],
      '/mailboxes',
      DEMO_AUTH,
    );
    children.push(prism);
    print(
      `GET ${path} (demo key, ${same.bytes} bytes), autocannon ${LOAD.connections} connections, ${LOAD.seconds} s each, interleaved twice; ratios of the same run (the machine is shared, absolute figures vary):`,
    );
    const rows = await interleaved(
      [
        { label: 'mailtwin', url: `${emulator.origin}${path}`, headers: DEMO_AUTH },
        { label: 'bare', url: `${same.server.origin}${path}`, headers: DEMO_AUTH },
        {
          label: 'prism',
          url: `${prism.origin}${path.replace('/openapi/v1', '')}`,
          headers: DEMO_AUTH,
        },
      ],
      LOAD.seconds,
    );
    print(`  mailtwin serve: ${fmt(rows.get('mailtwin') ?? [])}`);
    print(`  bare Hono, same bytes: ${fmt(rows.get('bare') ?? [])}`);
    print(`  prism mock spec/openapi.yaml: ${fmt(rows.get('prism') ?? [])}`);
    const m = mean(rows.get('mailtwin'));
    print(
      `  ratio to the same-bytes route ${(m / mean(rows.get('bare'))).toFixed(2)} (target ≥ 0.5); to prism mock ${(m / mean(rows.get('prism'))).toFixed(2)}× (target ≥ 1.5×)`,
    );
    print(
      `  mailtwin serve RSS after the load (demo data, in memory): ${rssMbOf(emulator.pid).toFixed(0)} MB`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same comparison over a `--db` file holding a mailbox of 10,000 emails and one of
 * 100,000: the first page, and a page deep in the cursor walk; then the RSS of `mailtwin serve
 * --db` with those 110,000 emails after list and search requests (target ≤ 300 MB).
 */
export async function benchDbList(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-bench-'));
  const children: ChildServer[] = [];
  try {
    const file = join(dir, 'bench.db');
    const store = openStore(file);
    const deps = defaultDeps({ store, logError: () => {} });
    const services = createServices(deps);
    const owner = services.directory.createOwner({ name: 'Bench' });
    const ten = services.directory.createMailbox({ address: 'ten@bench.test' }).address;
    const big = services.directory.createMailbox({ address: 'big@bench.test' }).address;
    services.directory.grant(owner.id, ten);
    services.directory.grant(owner.id, big);
    const { secret } = services.directory.createKey({
      ownerId: owner.id,
      name: 'bench',
      scope: 'follow-owner',
    });
    const { pick, words } = vocabulary(seeded(7));
    const started = performance.now();
    fillMailbox(store, deps.ids, ten, 10_000, pick);
    fillMailbox(store, deps.ids, big, 100_000, pick);
    store.close();
    print(
      `--db file with 10,000 + 100,000 emails written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const auth = { Authorization: `Bearer ${secret}` };
    const emulator = await startChild(
      process.execPath,
      [MAILTWIN, 'serve', '--db', file, '--port', '{port}', '--no-smtp'],
      '/openapi/v1/mailboxes',
      auth,
    );
    children.push(emulator);
    const first = `/openapi/v1/emails?mailbox=${ten}&limit=25`;
    let cursor = '';
    const pages: string[] = [];
    for (let page = 0; page < 300; page += 1) {
      const path = `${first}${cursor ? `&cursor=${cursor}` : ''}`;
      pages.push(path);
      const r = await fetch(`${emulator.origin}${path}`, { headers: auth });
      cursor = ((await r.json()) as { nextCursor: string }).nextCursor;
    }
    const deep = `${first}&cursor=${cursor}`;
    for (const [label, path] of [
      ['first page', first],
      ['page 301 (7,500 emails deep)', deep],
    ] as const) {
      const same = await sameBytesServer(`${emulator.origin}${path}`, auth, dir);
      try {
        const rows = await interleaved(
          [
            { label: 'mailtwin', url: `${emulator.origin}${path}`, headers: auth },
            { label: 'bare', url: `${same.server.origin}${path}`, headers: auth },
          ],
          5,
        );
        print(
          `10,000-email mailbox, ${label} (${same.bytes} bytes): mailtwin ${fmt(rows.get('mailtwin') ?? [])}; same bytes ${fmt(rows.get('bare') ?? [])}; ratio ${(mean(rows.get('mailtwin')) / mean(rows.get('bare'))).toFixed(2)}`,
        );
      } finally {
        await same.server.stop();
      }
    }
    // 300 distinct pages in turn: more than the page cache keeps, so every answer is queried.
    let next = 0;
    const walk = await autocannon({
      url: emulator.origin,
      duration: 5,
      connections: LOAD.connections,
      requests: [
        {
          method: 'GET',
          headers: auth,
          setupRequest: (request) => ({ ...request, path: pages[next++ % pages.length] as string }),
        },
      ],
    });
    print(
      `10,000-email mailbox, its first 300 pages requested in turn (none answered from the page cache): ${walk.requests.average.toFixed(0)} req/s, p99 ${walk.latency.p99} ms, non-2xx ${walk.non2xx}`,
    );
    for (let i = 0; i < 300; i += 1) {
      const q = `${words[i % words.length]?.slice(0, 3)}*`;
      await fetch(
        `${emulator.origin}/openapi/v1/emails?mailbox=${big}&q=${encodeURIComponent(q)}`,
        {
          headers: auth,
        },
      ).then((r) => r.arrayBuffer());
    }
    print(
      `mailtwin serve --db RSS with 110,000 emails after list and search load: ${rssMbOf(emulator.pid).toFixed(0)} MB (target ≤ 300 MB)`,
    );
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
