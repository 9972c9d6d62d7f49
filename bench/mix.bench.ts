import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createServices, defaultDeps } from '../emulator/src/app.ts';
import { openStore } from '../emulator/src/store/store.ts';
import { fillMailbox, seeded, vocabulary } from './corpus.ts';
import { cpuMsOf, minorFaultsOf, startChild, type ChildServer } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAILTWIN = join(ROOT, 'bin/mailtwin.js');
const PRISM = join(ROOT, 'node_modules/.bin/prism');
const SAME_BYTES = join(ROOT, 'bench/same-bytes-server.ts');
const DEMO_SECRET = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
/** `MIX_SECONDS=3 npm run bench -- mix` for a quicker, noisier look. */
const SECONDS = Number(process.env.MIX_SECONDS ?? 10);
/** Each server's unmeasured run of the mix before the first round (`MIX_WARM_SECONDS`). */
const WARM_SECONDS = Number(process.env.MIX_WARM_SECONDS ?? 2);
const CONNECTIONS = 50;
const FOLDERS = ['inbox', 'archive', 'sent', 'spam', 'trash'];
const LIMITS = ['10', '20', '25', '50', '100'];

/** One request of the mix, path below the API's base path (`/emails?…`). */
export interface MixRequest {
  kind: 'list' | 'detail' | 'patch';
  method: 'GET' | 'PATCH';
  path: string;
  body?: string;
}

/**
 * A client-like mix (issue 31 item 1), the same for every seed: 80% `GET /emails` over the
 * given mailboxes with varied `q`, `folder`, `read`, `starred` and `limit`; 10% `GET
 * /emails/{id}`; 10% `PATCH` of the read flag, so caches are emptied as a client's writes would.
 */
export function clientMix(
  mailboxes: string[],
  ids: string[],
  words: string[],
  count = 2000,
  seed = 31,
): MixRequest[] {
  const random = seeded(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
  const mix: MixRequest[] = [];
  for (let i = 0; i < count; i += 1) {
    const r = random();
    if (r < 0.8) {
      const query = new URLSearchParams({ mailbox: pick(mailboxes) });
      if (random() < 0.4)
        query.set('q', random() < 0.25 ? `${pick(words)} ${pick(words)}` : pick(words));
      if (random() < 0.35) query.set('folder', pick(FOLDERS));
      if (random() < 0.25) query.set('read', random() < 0.5 ? 'true' : 'false');
      if (random() < 0.2) query.set('starred', random() < 0.5 ? 'true' : 'false');
      if (random() < 0.5) query.set('limit', pick(LIMITS));
      mix.push({ kind: 'list', method: 'GET', path: `/emails?${query}` });
    } else if (r < 0.9) {
      mix.push({ kind: 'detail', method: 'GET', path: `/emails/${pick(ids)}` });
    } else {
      mix.push({
        kind: 'patch',
        method: 'PATCH',
        path: `/emails/${pick(ids)}`,
        body: JSON.stringify({ read: random() < 0.5 }),
      });
    }
  }
  return mix;
}

/** The mix's make-up, as printed beside its figures. */
export function describeMix(mix: MixRequest[]): string {
  const lists = mix.filter((m) => m.kind === 'list');
  const share = (n: number, of = mix.length) => `${Math.round((100 * n) / of)}%`;
  const having = (name: string) =>
    share(
      lists.filter((m) => new URL(m.path, 'http://x').searchParams.has(name)).length,
      lists.length,
    );
  return (
    `${mix.length} requests in turn: ${share(lists.length)} GET /emails (${new Set(lists.map((m) => m.path)).size} distinct URLs over ` +
    `${new Set(lists.map((m) => new URL(m.path, 'http://x').searchParams.get('mailbox'))).size} mailboxes; ` +
    `q in ${having('q')}, folder ${having('folder')}, read ${having('read')}, starred ${having('starred')}, limit ${having('limit')}), ` +
    `${share(mix.filter((m) => m.kind === 'detail').length)} GET /emails/{id}, ` +
    `${share(mix.filter((m) => m.kind === 'patch').length)} PATCH /emails/{id} {"read": …}`
  );
}

interface MixResult {
  rps: number;
  total: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** Runs `mix` in turn over `CONNECTIONS` connections against `origin + base`. */
async function runMix(
  origin: string,
  base: string,
  mix: MixRequest[],
  auth: string,
  seconds = SECONDS,
): Promise<MixResult> {
  let next = 0;
  const result = await autocannon({
    url: origin,
    duration: seconds,
    connections: CONNECTIONS,
    requests: [
      {
        setupRequest: (request) => {
          const m = mix[next++ % mix.length] as MixRequest;
          const headers: Record<string, string> = { authorization: `Bearer ${auth}` };
          if (m.body !== undefined) headers['content-type'] = 'application/json';
          return {
            ...request,
            method: m.method,
            path: `${base}${m.path}`,
            headers,
            ...(m.body === undefined ? {} : { body: m.body }),
          };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Every email id a key sees in `mailboxes` (first pages), and the words of their subjects. */
async function sample(origin: string, auth: string, mailboxes: string[]) {
  const ids: string[] = [];
  const words = new Set<string>();
  for (const mailbox of mailboxes) {
    const r = await fetch(`${origin}/openapi/v1/emails?mailbox=${mailbox}&limit=100`, {
      headers: { Authorization: `Bearer ${auth}` },
    });
    const body = (await r.json()) as { emails: { id: string; subject: string }[] };
    for (const email of body.emails) {
      ids.push(email.id);
      for (const word of email.subject.toLowerCase().split(/[^\p{L}\p{N}]+/u))
        if (word.length >= 3) words.add(word);
    }
  }
  return { ids, words: [...words] };
}

function cacheCounts(server: ChildServer): string {
  const m = /response cache (\d+) hits, (\d+) misses/.exec(server.stderr());
  if (m === null) return 'cache hit ratio unknown';
  const hits = Number(m[1]);
  const misses = Number(m[2]);
  return `cache hit ratio ${(hits / Math.max(1, hits + misses)).toFixed(2)} (${hits} hits of ${hits + misses} GETs passed to it)`;
}

const fmt = (r: MixResult) =>
  `${r.rps.toFixed(0)} req/s, p99 ${r.p99Ms} ms${r.non2xx > 0 || r.errors > 0 ? ` (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`;

/** A `--db` file with one mailbox of 10,000 emails and a follow-owner key; returns its secret. */
function tenThousand(file: string): { secret: string; mailbox: string } {
  const store = openStore(file);
  const deps = defaultDeps({ store, logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Bench' });
  const mailbox = services.directory.createMailbox({ address: 'ten@bench.test' }).address;
  services.directory.grant(owner.id, mailbox);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'bench',
    scope: 'follow-owner',
  });
  const { pick } = vocabulary(seeded(7));
  fillMailbox(store, deps.ids, mailbox, 10_000, pick);
  store.close();
  return { secret, mailbox };
}

/** `MIX_ROUNDS=1` for one pass over the servers; each round loads every server once, in turn. */
const ROUNDS = Number(process.env.MIX_ROUNDS ?? 2);
/** The cache off / on comparison's turns (`MIX_AB_REPEATS` of A-B-B-A) and their length. */
const AB_REPEATS = Number(process.env.MIX_AB_REPEATS ?? 2);
const AB_SECONDS = Number(process.env.MIX_AB_SECONDS ?? 3);

/** One measured run of a target: the load tool's figures and its server's own per request. */
type Run = MixResult & { cpuMsPerRequest: number; faultsPerRequest: number };

interface Target {
  label: string;
  server: ChildServer;
  base: string;
  mix: MixRequest[];
  auth: string;
  runs: Run[];
}

/** Runs the mix against `t` for `seconds`, with its server's CPU and page faults per request. */
async function measured(t: Target, seconds = SECONDS): Promise<Run> {
  const cpuBefore = cpuMsOf(t.server.pid);
  const faultsBefore = minorFaultsOf(t.server.pid);
  const result = await runMix(t.server.origin, t.base, t.mix, t.auth, seconds);
  const requests = Math.max(1, result.total);
  return {
    ...result,
    cpuMsPerRequest: (cpuMsOf(t.server.pid) - cpuBefore) / requests,
    faultsPerRequest: (minorFaultsOf(t.server.pid) - faultsBefore) / requests,
  };
}

/** Means over a target's rounds: req/s, worst p99, CPU and page faults per request of its process. */
function summary(t: Target) {
  const mean = (f: (r: Target['runs'][number]) => number) =>
    t.runs.reduce((s, r) => s + f(r), 0) / Math.max(1, t.runs.length);
  return {
    rps: mean((r) => r.rps),
    p99Ms: Math.max(...t.runs.map((r) => r.p99Ms)),
    cpuMs: mean((r) => r.cpuMsPerRequest),
    faults: mean((r) => r.faultsPerRequest),
    non2xx: t.runs.reduce((s, r) => s + r.non2xx + r.errors, 0),
  };
}

/**
 * Issue 31 item 1: the client-like mix against the bare route serving one list answer (the
 * stack's ceiling), `prism mock` of the spec, and `mailtwin serve` over the demo data and over
 * a `--db` mailbox of 10,000 emails, each with its response cache on and off. All run at once
 * and are loaded in turn, `ROUNDS` times, so a slow phase of a shared machine hits each; the
 * load tool shares the cores, so the ratios and each process's CPU per request mean more than
 * the absolute rates.
 */
export async function benchMix(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-mix-'));
  const started: ChildServer[] = [];
  const start = async (args: string[], ready: string, auth: string, env = {}) => {
    const child = await startChild(
      process.execPath,
      args,
      ready,
      { Authorization: `Bearer ${auth}` },
      env,
    );
    started.push(child);
    return child;
  };
  const counted = { MAILTWIN_CACHE_COUNTS: '1' };
  try {
    const serve = [MAILTWIN, 'serve', '--port', '{port}', '--no-smtp'];
    // The demo key's mailboxes (follow-owner: Acme's five).
    const demoBoxes = [
      'hello@acme.test',
      'billing@acme.test',
      'support@acme.test',
      'maria.lopez@acme.test',
      'team@acme-labs.test',
    ];
    // Two copies of one file: an emulator holds its --db file locked while it runs.
    const file = join(dir, 'ten.db');
    const ten = tenThousand(file);
    const fileOff = join(dir, 'ten-off.db');
    copyFileSync(file, fileOff);

    const on = await start(serve, '/openapi/v1/mailboxes', DEMO_SECRET, counted);
    const off = await start(
      [...serve, '--no-response-cache'],
      '/openapi/v1/mailboxes',
      DEMO_SECRET,
      counted,
    );
    const demo = await sample(on.origin, DEMO_SECRET, demoBoxes);
    const listAnswer = await fetch(
      `${on.origin}/openapi/v1/emails?mailbox=hello@acme.test&limit=25`,
      { headers: { Authorization: `Bearer ${DEMO_SECRET}` } },
    ).then(async (r) => Buffer.from(await r.arrayBuffer()));
    const body = join(dir, 'list.json');
    writeFileSync(body, listAnswer);
    const bare = await startChild(
      process.execPath,
      ['--import', 'tsx', SAME_BYTES, '{port}', body, 'application/json'],
      '/',
    );
    started.push(bare);
    const prism = await startChild(
      PRISM,
      ['mock', join(ROOT, 'spec/openapi.yaml'), '-p', '{port}', '-h', '127.0.0.1', '-v', 'error'],
      '/mailboxes',
      { Authorization: `Bearer ${DEMO_SECRET}` },
    );
    started.push(prism);
    const dbServe = (db: string) => [
      MAILTWIN,
      'serve',
      '--db',
      db,
      '--port',
      '{port}',
      '--no-smtp',
    ];
    const dbOn = await start(dbServe(file), '/openapi/v1/mailboxes', ten.secret, counted);
    const dbOff = await start(
      [...dbServe(fileOff), '--no-response-cache'],
      '/openapi/v1/mailboxes',
      ten.secret,
      counted,
    );
    const tenIds = (await sample(dbOn.origin, ten.secret, [ten.mailbox])).ids;

    const demoMix = clientMix(demoBoxes, demo.ids, demo.words);
    // The same requests with the other instance's ids: the demo's emails get ids as they load.
    const offMix = clientMix(
      demoBoxes,
      (await sample(off.origin, DEMO_SECRET, demoBoxes)).ids,
      demo.words,
    );
    // The corpus's most frequent words (vocabulary's first), as a client searching it would.
    const tenMix = clientMix([ten.mailbox], tenIds, vocabulary(seeded(7)).words.slice(0, 300));
    print(`The mix over the demo data: ${describeMix(demoMix)}`);
    print(`The mix over --db with 10,000 emails: ${describeMix(tenMix)}`);
    const target = (
      label: string,
      server: ChildServer,
      base: string,
      mix: MixRequest[],
      auth: string,
    ): Target => ({ label, server, base, mix, auth, runs: [] });
    const targets = {
      bare: target(
        `bare Hono route, one ${listAnswer.length}-byte list answer to every request`,
        bare,
        '',
        demoMix,
        DEMO_SECRET,
      ),
      prism: target('prism mock spec/openapi.yaml', prism, '', demoMix, DEMO_SECRET),
      on: target('mailtwin serve (demo data)', on, '/openapi/v1', demoMix, DEMO_SECRET),
      off: target(
        'mailtwin serve --no-response-cache (demo data)',
        off,
        '/openapi/v1',
        offMix,
        DEMO_SECRET,
      ),
      dbOn: target('mailtwin serve --db (10,000 emails)', dbOn, '/openapi/v1', tenMix, ten.secret),
      dbOff: target(
        'mailtwin serve --db --no-response-cache (10,000 emails)',
        dbOff,
        '/openapi/v1',
        tenMix,
        ten.secret,
      ),
    };
    print(
      `autocannon ${CONNECTIONS} connections, ${SECONDS} s a server, the servers in turn after a ${WARM_SECONDS} s warm-up each, ${ROUNDS} round(s), every other round in reverse order; CPU and minor page faults are the server process's own per request, CPU per round in brackets:`,
    );
    // A fresh process runs its first requests unoptimised; each server gets the same warm-up.
    for (const t of Object.values(targets))
      await runMix(t.server.origin, t.base, t.mix, t.auth, WARM_SECONDS);
    for (let round = 0; round < ROUNDS; round += 1) {
      // The order alternates, so no server always follows the same one (a loaded machine's
      // slow phase, or the one before it having just run).
      const inTurn = Object.values(targets);
      if (round % 2 === 1) inTurn.reverse();
      for (const t of inTurn) t.runs.push(await measured(t));
    }
    // The cache's own effect, each world's two servers alone in A-B-B-A turns: in the rounds
    // each sits in a fixed slot (after prism, after the --db server), and the rounds' ratio
    // once measured a server's state as much as the cache. The demo's server without the cache,
    // asked six requests here before its idle wait, ran with V8's object layouts settled too
    // small (off / on 0.69-0.78) until servers settled them before starting (settle-layouts.ts).
    const alternated = async (on: Target, off: Target) => {
      const runs = new Map<Target, Run[]>([
        [on, []],
        [off, []],
      ]);
      for (let turn = 0; turn < AB_REPEATS; turn += 1)
        for (const t of [on, off, off, on]) runs.get(t)!.push(await measured(t, AB_SECONDS));
      const mean = (t: Target, f: (r: Run) => number) =>
        runs.get(t)!.reduce((sum, r) => sum + f(r), 0) / runs.get(t)!.length;
      return {
        rate: mean(off, (r) => r.rps) / mean(on, (r) => r.rps),
        cpu: mean(off, (r) => r.cpuMsPerRequest) / mean(on, (r) => r.cpuMsPerRequest),
      };
    };
    const demoAB = await alternated(targets.on, targets.off);
    const dbAB = await alternated(targets.dbOn, targets.dbOff);
    for (const t of Object.values(targets)) await t.server.stop();
    for (const [key, t] of Object.entries(targets)) {
      const s = summary(t);
      const note = key === 'bare' || key === 'prism' ? '' : `; ${cacheCounts(t.server)}`;
      print(
        `  ${t.label}: ${t.runs.map(fmt).join(' / ')}; CPU ${s.cpuMs.toFixed(3)} ms a request (${t.runs.map((r) => r.cpuMsPerRequest.toFixed(3)).join(' / ')}), page faults ${s.faults.toFixed(2)} a request${note}`,
      );
    }
    const ceiling = summary(targets.bare);
    const mock = summary(targets.prism);
    print('Ratios of this run, means of the rounds (printed, never asserted):');
    for (const key of ['on', 'off', 'dbOn', 'dbOff'] as const) {
      const s = summary(targets[key]);
      print(
        `  ${targets[key].label}: ${(s.rps / ceiling.rps).toFixed(2)} of the bare route (target ≥ 0.5), ${(s.rps / mock.rps).toFixed(2)}× prism (target ≥ 2×), p99 ${s.p99Ms} ms (target ≤ 25 ms); CPU a request ${(s.cpuMs / ceiling.cpuMs).toFixed(1)}× the bare route's, ${(s.cpuMs / mock.cpuMs).toFixed(2)}× prism's`,
      );
    }
    const rate = (key: keyof typeof targets) => summary(targets[key]).rps;
    print(
      `  cache off / on, the rounds above (each server in its own slot): demo ${(rate('off') / rate('on')).toFixed(2)}, --db ${(rate('dbOff') / rate('dbOn')).toFixed(2)}`,
    );
    print(
      `  cache off / on, each world's two servers alone, A-B-B-A × ${AB_REPEATS}, ${AB_SECONDS} s a run: demo ${demoAB.rate.toFixed(2)} (CPU a request ${demoAB.cpu.toFixed(2)}×), --db ${dbAB.rate.toFixed(2)} (CPU a request ${dbAB.cpu.toFixed(2)}×) (target: rates within 10%)`,
    );
  } finally {
    for (const child of started.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
