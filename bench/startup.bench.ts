import { spawn, spawnSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { percentile } from './measure.ts';
import { cpuMsOf, freePort } from './processes.ts';

const BIN = fileURLToPath(new URL('../bin/mailtwin.js', import.meta.url));
const BUILD = fileURLToPath(new URL('../bin/build.js', import.meta.url));
const DIST_MODULES = fileURLToPath(new URL('./dist-modules-main.js', import.meta.url));
/** The demo fixture's public key (fixtures/demo.json), fixed so polling needs no banner. */
const DEMO_KEY = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
/**
 * From spawning `node <script> serve` (bin/mailtwin.js unless told) with the demo fixture to
 * its first 200 on GET /openapi/v1/mailboxes (polled every 5 ms): wall-clock ms, and the CPU
 * ms the process used by then, which a busy machine changes far less. The process is then
 * stopped.
 */
export async function timeToFirst200(
  env: Record<string, string> = {},
  script = BIN,
): Promise<{ wallMs: number; cpuMs: number }> {
  const port = await freePort();
  const start = performance.now();
  const child = spawn(process.execPath, [script, 'serve', '--port', String(port), '--no-smtp'], {
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`mailtwin exited with ${code}`))),
  );
  try {
    for (;;) {
      const answered = await Promise.race([
        fetch(`http://127.0.0.1:${port}/openapi/v1/mailboxes`, {
          headers: { Authorization: `Bearer ${DEMO_KEY}` },
        }).then(
          async (r) => (await r.arrayBuffer(), r.status === 200),
          () => false,
        ),
        exited,
      ]);
      if (answered)
        return { wallMs: performance.now() - start, cpuMs: cpuMsOf(child.pid as number) };
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.removeAllListeners('exit');
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

/** What the build computed once for every start (emulator/src/prebuilt.ts). */
const PREBUILT = fileURLToPath(new URL('../dist/prebuilt.json', import.meta.url));

/** `timeToFirst200()` with dist/prebuilt.json moved aside, so the start computes it all. */
async function withoutPrebuilt(): Promise<{ wallMs: number; cpuMs: number }> {
  renameSync(PREBUILT, `${PREBUILT}.aside`);
  try {
    return await timeToFirst200();
  } finally {
    renameSync(`${PREBUILT}.aside`, PREBUILT);
  }
}

/**
 * Start-up (issue 18 item 2, issue 29 item 5): compiled (the start-up bundle of dist/, when
 * current), the same without the build's outputs (dist/prebuilt.json), the compiled modules of
 * dist/ without the bundle, and from source through tsx (MAILTWIN_FROM_SOURCE=1), interleaved,
 * 7 runs each: median and worst; each line after the first is a start without one piece.
 */
export async function benchStartup(print: (line: string) => void): Promise<void> {
  // Built now, so the compiled start is of the sources as they are (bin/mailtwin.js would
  // fall back to tsx after any edit since the last build).
  const build = spawnSync(process.execPath, [BUILD], { encoding: 'utf8' });
  if (build.status !== 0)
    print(`npm run build failed, so both runs below are from source: ${build.stderr}`);
  const kinds = {
    compiled: () => timeToFirst200(),
    unprebuilt: withoutPrebuilt,
    modules: () => timeToFirst200({}, DIST_MODULES),
    tsx: () => timeToFirst200({ MAILTWIN_FROM_SOURCE: '1' }),
  };
  const runs = Object.fromEntries(
    Object.keys(kinds).map((kind) => [kind, { wall: [] as number[], cpu: [] as number[] }]),
  ) as Record<keyof typeof kinds, { wall: number[]; cpu: number[] }>;
  for (let i = 0; i < 7; i += 1) {
    for (const [kind, run] of Object.entries(kinds) as [
      keyof typeof kinds,
      typeof timeToFirst200,
    ][]) {
      const { wallMs, cpuMs } = await run();
      runs[kind].wall.push(wallMs);
      runs[kind].cpu.push(cpuMs);
    }
  }
  const line = ({ wall, cpu }: { wall: number[]; cpu: number[] }) => {
    wall.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    return `median ${percentile(wall, 50).toFixed(0)} ms, worst ${(wall.at(-1) ?? Number.NaN).toFixed(0)} ms (CPU used by then: median ${percentile(cpu, 50).toFixed(0)} ms)`;
  };
  print(
    `process start to first 200 on /openapi/v1/mailboxes (demo fixture, target ≤ 500 ms), 7 runs each, interleaved:`,
  );
  print(`  bin/mailtwin.js, compiled (dist/bundle): ${line(runs.compiled)}`);
  print(`  the same without the build's outputs (dist/prebuilt.json): ${line(runs.unprebuilt)}`);
  print(`  dist/'s modules without the bundle: ${line(runs.modules)}`);
  print(`  bin/mailtwin.js, sources through tsx: ${line(runs.tsx)}`);
}
