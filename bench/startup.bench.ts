import { spawn, spawnSync } from 'node:child_process';
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

/**
 * Start-up (issue 18 item 2): compiled (the start-up bundle of dist/, when current), the
 * compiled modules of dist/ without the bundle, and from source through tsx
 * (MAILTWIN_FROM_SOURCE=1), interleaved, 7 runs each: median and worst.
 */
export async function benchStartup(print: (line: string) => void): Promise<void> {
  // Built now, so the compiled start is of the sources as they are (bin/mailtwin.js would
  // fall back to tsx after any edit since the last build).
  const build = spawnSync(process.execPath, [BUILD], { encoding: 'utf8' });
  if (build.status !== 0)
    print(`npm run build failed, so both runs below are from source: ${build.stderr}`);
  const runs = {
    compiled: [] as number[],
    compiledCpu: [] as number[],
    modules: [] as number[],
    modulesCpu: [] as number[],
    tsx: [] as number[],
    tsxCpu: [] as number[],
  };
  for (let i = 0; i < 7; i += 1) {
    const compiled = await timeToFirst200();
    runs.compiled.push(compiled.wallMs);
    runs.compiledCpu.push(compiled.cpuMs);
    const modules = await timeToFirst200({}, DIST_MODULES);
    runs.modules.push(modules.wallMs);
    runs.modulesCpu.push(modules.cpuMs);
    const tsx = await timeToFirst200({ MAILTWIN_FROM_SOURCE: '1' });
    runs.tsx.push(tsx.wallMs);
    runs.tsxCpu.push(tsx.cpuMs);
  }
  const line = (wall: number[], cpu: number[]) => {
    wall.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    return `median ${percentile(wall, 50).toFixed(0)} ms, worst ${(wall.at(-1) ?? Number.NaN).toFixed(0)} ms (CPU used by then: median ${percentile(cpu, 50).toFixed(0)} ms)`;
  };
  print(
    `process start to first 200 on /openapi/v1/mailboxes (demo fixture, target ≤ 500 ms), 7 runs each, interleaved:`,
  );
  print(`  bin/mailtwin.js, compiled (dist/bundle): ${line(runs.compiled, runs.compiledCpu)}`);
  print(`  dist/'s modules without the bundle: ${line(runs.modules, runs.modulesCpu)}`);
  print(`  bin/mailtwin.js, sources through tsx: ${line(runs.tsx, runs.tsxCpu)}`);
}
