// Issue 17 item 5: mailtwin runs without a clone. The tarball `npm pack` makes is installed
// offline into an empty folder, and from there `npx mailtwin serve`, `npx mailtwin-conformance
// --base-url ...` and `import { verifyWebhook } from 'mailtwin/webhooks'` work, on compiled
// JavaScript alone: the package holds no TypeScript to compile and installs no tsx.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { required, startBanneredServer, type StartedServer } from '../variants/live-target.ts';
import { REPO_ROOT, installOffline, localPrebuilds, packTarball } from './offline-install.ts';

const work = mkdtempSync(join(tmpdir(), 'mailtwin-package-'));
const app = join(work, 'app');
let tarball = '';
let packed: string[] = [];
let server: StartedServer | undefined;

/** Whether dist/ was compiled from the sources as they are now (bin/compiled.js). */
function distIsCurrent(): boolean {
  const probe = `import('./bin/compiled.js').then((m) => process.stdout.write(String(m.compiledModule('emulator/src/main.js') !== undefined)))`;
  return (
    execFileSync(process.execPath, ['-e', probe], { cwd: REPO_ROOT, encoding: 'utf8' }) === 'true'
  );
}

beforeAll(() => {
  if (!distIsCurrent()) {
    throw new Error('dist/ is older than the sources: run `npm run build` (npm test does) first');
  }
  tarball = packTarball(work);
  packed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));
  installOffline(app, tarball, localPrebuilds(join(work, 'prebuilds')));
}, 240_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('ships compiled JavaScript and the files it reads, and no TypeScript, tests or source maps', () => {
    expect(packed).toContain('dist/emulator/src/main.js');
    expect(packed).toContain('dist/conformance/src/cli/main.js');
    // What both programs share (the flag-table machinery) is compiled beside them.
    expect(packed).toContain('dist/shared/flag-table.js');
    expect(packed).toContain('dist/.sources-sha256');
    expect(packed).toContain('dist/bundle/emulator-src-main.js');
    expect(packed).toContain('dist/prebuilt.json');
    expect(packed).toEqual(expect.arrayContaining(['spec/openapi.yaml', 'fixtures/demo.json']));
    const typescript = packed.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    expect(typescript).toEqual([]);
    expect(packed.filter((file) => /\.test\.|\.map$|^tests\//.test(file))).toEqual([]);
  });

  it('ships JavaScript that names no source map (issue 27 item 7: none is shipped)', () => {
    const compiled = join(app, 'node_modules/mailtwin/dist');
    const naming = packed
      .filter((file) => file.startsWith('dist/') && file.endsWith('.js'))
      .filter((file) =>
        readFileSync(join(compiled, file.slice('dist/'.length)), 'utf8').includes(
          'sourceMappingURL',
        ),
      );
    expect(naming).toEqual([]);
  });

  it('installs offline with no tsx, TypeScript or test-only tool among the installed packages', () => {
    const installed = join(app, 'node_modules');
    expect(existsSync(join(installed, 'mailtwin/dist/emulator/src/main.js'))).toBe(true);
    // The start-up bundle is there, so `mailtwin serve` runs it.
    const probe = `import(${JSON.stringify(join(installed, 'mailtwin/bin/compiled.js'))}).then((m) => process.stdout.write(String(m.bundledModule('emulator/src/main.js'))))`;
    expect(execFileSync(process.execPath, ['-e', probe], { cwd: app, encoding: 'utf8' })).toBe(
      join(installed, 'mailtwin/dist/bundle/emulator-src-main.js'),
    );
    for (const devOnly of [
      'tsx',
      'typescript',
      'playwright-core',
      '@stoplight/prism-cli',
      'autocannon',
    ]) {
      expect(existsSync(join(installed, devOnly)), `${devOnly} was installed`).toBe(false);
    }
  });

  it('starts with `npx mailtwin serve` and answers the API with the demo key', async () => {
    server = await startBanneredServer(
      'npx',
      ['--offline', 'mailtwin', 'serve', '--port', '0', '--no-smtp', '--quiet'],
      app,
    );
    const response = await fetch(`${required(server.vars, 'MAILTWIN_BASE_URL')}/mailboxes`, {
      headers: { Authorization: `Bearer ${required(server.vars, 'MAILTWIN_API_KEY')}` },
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('hello@acme.test');
  });

  it('runs `npx mailtwin-conformance --base-url ...` against that server and finds it conformant', () => {
    expect(server, 'the serve test started no server').toBeDefined();
    const run = spawnSync(
      'npx',
      [
        '--offline',
        'mailtwin-conformance',
        '--base-url',
        required(server!.vars, 'MAILTWIN_BASE_URL'),
        '--api-key',
        required(server!.vars, 'MAILTWIN_API_KEY'),
        '--mailbox',
        'hello@acme.test',
        '--profile',
        'read-only',
        '--seed',
        '7',
        '--num-runs',
        '5',
        '--report-dir',
        join(work, 'report'),
      ],
      { cwd: app, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 240_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^Result: conformant/m);
    // Issue 27 item 7: the run starts with no stack trace about a map the package leaves out.
    expect(run.stderr).not.toContain('Failed to load source map');
    expect(run.stderr).not.toMatch(/ENOENT/);
  }, 300_000);

  it('exports verifyWebhook from mailtwin/webhooks, which accepts a signed vector and refuses a tampered one', () => {
    const vectors = join(app, 'node_modules/mailtwin/fixtures/webhook-vectors.json');
    const { vectors: all } = JSON.parse(readFileSync(vectors, 'utf8')) as {
      vectors: { name: string; expected: string }[];
    };
    expect(all.some((vector) => vector.name === 'valid' && vector.expected === 'valid')).toBe(true);
    writeFileSync(
      join(app, 'verify.mjs'),
      `import { readFileSync } from 'node:fs';
import { verifyWebhook, WebhookVerificationError } from 'mailtwin/webhooks';
const { vectors } = JSON.parse(readFileSync(${JSON.stringify(vectors)}, 'utf8'));
const v = vectors.find((vector) => vector.name === 'valid');
const headers = { 'x-service-timestamp': v.timestamp, 'x-service-signature': v.signatureHeader, 'x-service-webhook-id': v.webhookIdHeader };
const verify = (rawBody) => verifyWebhook({ secret: v.secret, headers, rawBody, now: Date.parse(v.now), toleranceSeconds: v.toleranceSeconds });
console.log(verify(v.rawBody).event);
try { verify(v.rawBody + ' '); } catch (error) { console.log(error instanceof WebhookVerificationError ? error.code : String(error)); }
`,
    );
    const out = execFileSync(process.execPath, ['verify.mjs'], { cwd: app, encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(['email.received', 'signature_mismatch']);
  });

  // Issue 30 item 4: the test kit from the installed package, its code and its types.
  it('exports mailtwin/testing: an emulator in process, a tenant, its mail waited for, typed', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'dist/emulator/src/testing-kit/index.js',
        'dist/emulator/src/testing-kit/index.d.ts',
        'dist/spec/generated/control.d.ts',
      ]),
    );
    const source = `import { startMailtwin, MailtwinError, type Tenant } from 'mailtwin/testing';
const server = await startMailtwin();
const tenant: Tenant = await server.mailtwin.createTenant({ mailboxes: 2 });
const to: string = tenant.mailboxes[1] ?? '';
await tenant.send({ to, subject: 'Kit', text: 'From the package' });
const [mail] = await tenant.waitForMail({ mailbox: to, subject: 'kit' });
const code = await tenant.waitForOutbox({}, { timeoutMs: 0 }).catch((e: MailtwinError) => e.code);
console.log(mail?.subject, code);
await tenant.delete();
await server.stop();
`;
    writeFileSync(join(app, 'kit.mts'), source);
    writeFileSync(
      join(app, 'kit.mjs'),
      source
        .replace(', type Tenant', '')
        .replace(': Tenant', '')
        .replace(': string', '')
        .replace('(e: MailtwinError)', '(e)'),
    );
    const out = execFileSync(process.execPath, ['kit.mjs'], { cwd: app, encoding: 'utf8' });
    expect(out.trim()).toBe('Kit wait_timeout');
    const tsc = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        'false',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        join(REPO_ROOT, 'node_modules/@types'),
        'kit.mts',
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);
});
