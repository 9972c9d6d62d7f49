/**
 * CPU per request of the bench's client mix (mix.bench.ts) in process, through `app.request`
 * with no socket: on a loaded machine the wall clock says little, the CPU time a request more
 * (issue 31 item 1). Over the demo data and a mailbox of 10,000 emails, after one warm-up pass.
 * `node --import tsx bench/mix-cpu.ts`; WORLDS=demo|ten, PASSES=3, CACHE=0 (no response
 * cache), DIST=1 (the compiled dist/, so `node --cpu-prof` names lines of what runs; DIST=name:
 * another compiled tree in the checkout, a copy of dist/ kept for an A/B), TEN_DB=1 (the
 * 10,000 emails in a database file, as `serve --db` keeps them, instead of in memory). Requests
 * through `app.request` build a full undici Request and Response, which a socket's do not, so
 * the figures are above the server's own; compare runs of the same kind, side by side.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as srcApp from '../emulator/src/app.ts';
import * as srcFixture from '../emulator/src/fixtures/load-fixture.ts';
import * as srcStore from '../emulator/src/store/store.ts';
import { fillMailbox, seeded, vocabulary } from './corpus.ts';
import { clientMix, type MixRequest } from './mix.bench.ts';

// DIST=1: the compiled emulator (dist/), whose CPU profile names lines of the JavaScript run.
const distDir = process.env.DIST === '1' ? 'dist' : process.env.DIST;
const dist = distDir !== undefined && distDir !== '' && distDir !== '0';
const compiled = (module: string) => import(`../${distDir}/emulator/src/${module}.js`);
const { createApp, createServices, defaultDeps } = (
  dist ? await compiled('app') : srcApp
) as typeof srcApp;
const { loadFixtureFile } = (
  dist ? await compiled('fixtures/load-fixture') : srcFixture
) as typeof srcFixture;
const { openStore } = (dist ? await compiled('store/store') : srcStore) as typeof srcStore;
const DEMO_SECRET = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
const PASSES = Number(process.env.PASSES ?? 3);
const CACHE = process.env.CACHE !== '0';
/** Folders of TEN_DB files, removed at the end. */
const scratch: string[] = [];

async function world(kind: 'demo' | 'ten') {
  let path = ':memory:';
  if (kind === 'ten' && process.env.TEN_DB === '1') {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-mix-cpu-'));
    scratch.push(dir);
    path = join(dir, 'ten.db');
  }
  const store = openStore(path);
  const deps = defaultDeps({ store, logError: (e) => console.error(e), responseCache: CACHE });
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
    const owner = services.directory.createOwner({ name: 'Bench' });
    const mailbox = services.directory.createMailbox({ address: 'ten@bench.test' }).address;
    services.directory.grant(owner.id, mailbox);
    secret = services.directory.createKey({
      ownerId: owner.id,
      name: 'b',
      scope: 'follow-owner',
    }).secret;
    fillMailbox(store, deps.ids, mailbox, 10_000, vocabulary(seeded(7)).pick);
    boxes = [mailbox];
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
  return { app, secret, mix };
}

async function run(kind: 'demo' | 'ten') {
  const { app, secret, mix } = await world(kind);
  const send = (m: MixRequest) =>
    app.request(`/openapi/v1${m.path}`, {
      method: m.method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(m.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(m.body === undefined ? {} : { body: m.body }),
    });
  // Warm-up pass.
  for (const m of mix) await (await send(m)).arrayBuffer();
  const cpu = { list: 0, detail: 0, patch: 0 };
  const n = { list: 0, detail: 0, patch: 0 };
  const all0 = process.cpuUsage();
  for (let p = 0; p < PASSES; p += 1) {
    for (const m of mix) {
      const c0 = process.cpuUsage();
      const r = await send(m);
      await r.arrayBuffer();
      const d = process.cpuUsage(c0);
      cpu[m.kind] += d.user + d.system;
      n[m.kind] += 1;
      if (r.status >= 300) throw new Error(`${m.method} ${m.path}: ${r.status}`);
    }
  }
  const all = process.cpuUsage(all0);
  const total = n.list + n.detail + n.patch;
  const us = (k: keyof typeof cpu) => (cpu[k] / n[k]).toFixed(0);
  console.log(
    `${kind}${kind === 'ten' && process.env.TEN_DB === '1' ? ' (file)' : ''}${CACHE ? '' : ' (no cache)'}: all ${((all.user + all.system) / total).toFixed(0)} µs a request; list ${us('list')}, detail ${us('detail')}, patch ${us('patch')} µs (${PASSES} passes of ${mix.length})`,
  );
}

for (const kind of (process.env.WORLDS ?? 'demo,ten').split(',') as ('demo' | 'ten')[])
  await run(kind);
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
process.exit(0);
