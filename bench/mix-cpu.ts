/**
 * CPU per request of the bench's client mix (mix.bench.ts) in process, through `app.request`
 * with no socket: on a loaded machine the wall clock says little, the CPU time a request more
 * (issue 31 item 1). Over the demo data and a mailbox of 10,000 emails, after one warm-up pass.
 * `node --import tsx bench/mix-cpu.ts`; WORLDS=demo|ten, PASSES=3, CACHE=0 (no response
 * cache; CACHE=1,0 both, alternated), DIST=1 (the compiled dist/, so `node --cpu-prof` names lines of what runs; DIST=name:
 * another compiled tree in the checkout, a copy of dist/ kept for an A/B), TEN_DB=1 (the
 * 10,000 emails in a database file, as `serve --db` keeps them, instead of in memory). Requests
 * through `app.request` build a full undici Request and Response, which a socket's do not, so
 * the figures are above the server's own; compare runs of the same kind, side by side.
 *
 * DIST=a,b (two compiled trees, e.g. dist-base,dist): an A/B in one process, each tree's world
 * built by its own code, the requests run on each in turn in chunks of 50 (the order swapped
 * every pass), so a slow phase of a loaded machine falls on both alike; every answer is
 * compared byte for byte. SHAPES=1 prints the list requests by shape too (q of one word or
 * more, with or without folder/read/starred), each shape's CPU a request and its share.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as srcApp from '../emulator/src/app.ts';
import * as srcFixture from '../emulator/src/fixtures/load-fixture.ts';
import * as srcStore from '../emulator/src/store/store.ts';
import { fillMailbox, seeded, vocabulary } from './corpus.ts';
import { startCpuProfile } from './cpu-profile.ts';
import { clientMix, type MixRequest } from './mix.bench.ts';

/** The emulator's modules, from the sources or a compiled tree. */
interface Tree {
  name: string;
  createApp: typeof srcApp.createApp;
  createServices: typeof srcApp.createServices;
  defaultDeps: typeof srcApp.defaultDeps;
  loadFixtureFile: typeof srcFixture.loadFixtureFile;
  openStore: typeof srcStore.openStore;
}

// DIST=1: the compiled emulator (dist/), whose CPU profile names lines of the JavaScript run.
async function tree(distDir: string | undefined): Promise<Tree> {
  const dir = distDir === '1' ? 'dist' : distDir;
  if (dir === undefined || dir === '' || dir === '0')
    return { name: 'src', ...srcApp, ...srcFixture, ...srcStore };
  const compiled = (module: string) => import(`../${dir}/emulator/src/${module}.js`);
  const app = (await compiled('app')) as typeof srcApp;
  const fixture = (await compiled('fixtures/load-fixture')) as typeof srcFixture;
  const store = (await compiled('store/store')) as typeof srcStore;
  return {
    name: dir,
    createApp: app.createApp,
    createServices: app.createServices,
    defaultDeps: app.defaultDeps,
    loadFixtureFile: fixture.loadFixtureFile,
    openStore: store.openStore,
  };
}
const trees = await Promise.all((process.env.DIST ?? '').split(',').map(tree));
// As `bin/mailtwin.js` runs the emulator: its V8 settings (bin/v8-flags.js), set before the
// first request.
const V8_FLAGS_JS: string = '../bin/v8-flags.js';
((await import(V8_FLAGS_JS)) as { applyV8Flags: () => void }).applyV8Flags();
const DEMO_SECRET = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
const PASSES = Number(process.env.PASSES ?? 3);
/**
 * CACHE=0: no response cache; CACHE=1,0 (or 0,1): each tree's world twice, with and without
 * it, alternated like two trees (one process, one heap: compare CPU, not GC).
 */
const CACHES = (process.env.CACHE ?? '1').split(',').map((c) => c !== '0');
/** Folders of TEN_DB files, removed at the end. */
const scratch: string[] = [];

/** The mailbox of 10,000 emails and its key's owner, made in `store` through `t`'s services. */
function fillTen(t: Tree, store: srcStore.Store, services: ReturnType<Tree['createServices']>) {
  const owner = services.directory.createOwner({ name: 'Bench' });
  const mailbox = services.directory.createMailbox({ address: 'ten@bench.test' }).address;
  services.directory.grant(owner.id, mailbox);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'b',
    scope: 'follow-owner',
  });
  fillMailbox(
    store,
    t.defaultDeps({ store, logError: () => {} }).ids,
    mailbox,
    10_000,
    vocabulary(seeded(7)).pick,
  );
  return { mailbox, secret };
}

/**
 * TEN_DB=1: the 10,000-email file, written once by the first tree and copied for each world, so
 * every tree serves the same emails, ids and key (and their answers can be compared).
 */
let tenSeed: { file: string; mailbox: string; secret: string } | undefined;
function seedTen(t: Tree) {
  if (tenSeed !== undefined) return tenSeed;
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-mix-cpu-'));
  scratch.push(dir);
  const file = join(dir, 'seed.db');
  const store = t.openStore(file);
  const made = fillTen(t, store, t.createServices(t.defaultDeps({ store, logError: () => {} })));
  store.close();
  tenSeed = { file, ...made };
  return tenSeed;
}

async function world(kind: 'demo' | 'ten', t: Tree, cache: boolean) {
  const { createApp, createServices, defaultDeps, loadFixtureFile, openStore } = t;
  let path = ':memory:';
  const seed = kind === 'ten' && process.env.TEN_DB === '1' ? seedTen(trees[0] as Tree) : undefined;
  if (seed !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-mix-cpu-'));
    scratch.push(dir);
    path = join(dir, 'ten.db');
    copyFileSync(seed.file, path);
  }
  const store = openStore(path);
  const deps = defaultDeps({ store, logError: (e) => console.error(e), responseCache: cache });
  const services = createServices(deps);
  const app = createApp(deps, services);
  let secret = DEMO_SECRET;
  let boxes = [
    'hello@acme.test',
    'billing@acme.test',
    'support@acme.test',
    'maria.lopez@acme.test',
    'team@acme-labs.test',
  ];
  if (kind === 'demo') await loadFixtureFile(services, 'fixtures/demo.json');
  else {
    const made = seed ?? fillTen(t, store, services);
    secret = made.secret;
    boxes = [made.mailbox];
  }
  const ids: string[] = [];
  const words = new Set<string>();
  for (const mailbox of boxes) {
    const r = await app.request(`/openapi/v1/emails?mailbox=${mailbox}&limit=100`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    const body = (await r.json()) as { emails: { id: string; subject: string }[] };
    for (const e of body.emails) {
      ids.push(e.id);
      for (const w of e.subject.toLowerCase().split(/[^\p{L}\p{N}]+/u))
        if (w.length >= 3) words.add(w);
    }
  }
  const mix = clientMix(
    boxes,
    ids,
    kind === 'demo' ? [...words] : vocabulary(seeded(7)).words.slice(0, 300),
  );
  return { app, secret, mix, cache, counts: services.responseCache.counts };
}

/** What a request of the mix is, for SHAPES=1: its kind, or a list's q and filters. */
function shapeOf(m: MixRequest): string {
  if (m.kind !== 'list') return m.kind;
  const query = new URL(m.path, 'http://x').searchParams;
  const q = query.get('q');
  const words =
    q === null ? 'list, no q' : q.includes(' ') ? 'list, q of 2 words' : 'list, q of 1 word';
  const filtered = ['folder', 'read', 'starred'].some((name) => query.has(name));
  return filtered ? `${words}, filtered` : words;
}

async function run(kind: 'demo' | 'ten') {
  const worlds: (Awaited<ReturnType<typeof world>> & { t: Tree })[] = [];
  for (const t of trees)
    for (const cache of CACHES) worlds.push({ t, ...(await world(kind, t, cache)) });
  const send = (w: (typeof worlds)[number], m: MixRequest) =>
    w.app.request(`/openapi/v1${m.path}`, {
      method: m.method,
      headers: {
        authorization: `Bearer ${w.secret}`,
        ...(m.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(m.body === undefined ? {} : { body: m.body }),
    });
  // Warm-up pass; with TEN_DB=1 every answer of the 10,000 emails compared with the first
  // tree's (the demo's ids, and those of mail filled in memory, differ between worlds).
  const first = worlds[0] as (typeof worlds)[number];
  for (const [k, m] of first.mix.entries()) {
    const answers: Buffer[] = [];
    for (const w of worlds)
      answers.push(Buffer.from(await (await send(w, w.mix[k] as MixRequest)).arrayBuffer()));
    if (
      tenSeed !== undefined &&
      kind === 'ten' &&
      answers.some((a) => !a.equals(answers[0] as Buffer))
    )
      throw new Error(
        `${m.method} ${m.path}: the answers of ${trees.map((t) => t.name).join(' and ')} differ`,
      );
  }
  const cpu = worlds.map(() => new Map<string, { n: number; us: number }>());
  const all = worlds.map(() => 0);
  const CHUNK = 50;
  // PROFILE=path: a CPU profile of the measured passes alone (not the world's making or the
  // warm-up), written to path.<world>.cpuprofile.
  const profiler = process.env.PROFILE ? await startCpuProfile(100) : undefined;
  for (let p = 0; p < PASSES; p += 1) {
    for (let c = 0; c < first.mix.length; c += CHUNK) {
      const order = [...worlds.keys()];
      if (p % 2 === 1) order.reverse();
      for (const s of order) {
        const w = worlds[s] as (typeof worlds)[number];
        for (const m of w.mix.slice(c, c + CHUNK)) {
          const c0 = process.cpuUsage();
          const r = await send(w, m);
          await r.arrayBuffer();
          const d = process.cpuUsage(c0);
          if (r.status >= 300) throw new Error(`${m.method} ${m.path}: ${r.status}`);
          all[s] = (all[s] as number) + d.user + d.system;
          for (const key of m.kind === 'list' ? [m.kind, shapeOf(m)] : [m.kind]) {
            const kept = (cpu[s] as Map<string, { n: number; us: number }>).get(key) ?? {
              n: 0,
              us: 0,
            };
            kept.n += 1;
            kept.us += d.user + d.system;
            (cpu[s] as Map<string, { n: number; us: number }>).set(key, kept);
          }
        }
      }
    }
  }
  if (profiler !== undefined) {
    const path = `${process.env.PROFILE}.${kind}.cpuprofile`;
    await profiler.stop(path);
    console.log(`CPU profile of the measured passes: ${path}`);
  }
  const total = PASSES * first.mix.length;
  for (const [s, w] of worlds.entries()) {
    const by = cpu[s] as Map<string, { n: number; us: number }>;
    const us = (k: string) => {
      const kept = by.get(k);
      return kept === undefined ? '-' : (kept.us / kept.n).toFixed(0);
    };
    const label = `${trees.length > 1 ? `${w.t.name} ` : ''}${kind}${kind === 'ten' && process.env.TEN_DB === '1' ? ' (file)' : ''}${w.cache ? '' : ' (no cache)'}`;
    const { hits, misses } = w.counts;
    const ratio = w.cache
      ? `; cache hit ratio ${(hits / Math.max(1, hits + misses)).toFixed(2)}`
      : '';
    console.log(
      `${label}: all ${((all[s] as number) / total).toFixed(0)} µs a request; list ${us('list')}, detail ${us('detail')}, patch ${us('patch')} µs (${PASSES} passes of ${first.mix.length}${worlds.length > 1 ? ', worlds alternated in chunks of 50' : ''})${ratio}`,
    );
    if (process.env.SHAPES === '1')
      for (const [k, kept] of [...by].filter(([k]) => k.startsWith('list, ')).sort()) {
        console.log(
          `  ${k}: ${(kept.n / PASSES).toFixed(0)} a pass, ${(kept.us / kept.n).toFixed(0)} µs each, ${((100 * kept.us) / (all[s] as number)).toFixed(1)}% of the CPU`,
        );
      }
  }
}

for (const kind of (process.env.WORLDS ?? 'demo,ten').split(',') as ('demo' | 'ten')[])
  await run(kind);
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
process.exit(0);
