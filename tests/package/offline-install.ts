/**
 * Installs mailtwin's `npm pack` tarball into an empty folder the way a user without network
 * would: `npm ci --offline`, every dependency taken from npm's cache. An offline install needs
 * a lockfile (npm cannot resolve versions without the registry), so the folder gets one made
 * from mailtwin's own package-lock.json: the same versions and integrity hashes, minus every
 * package that only development needs. better-sqlite3's install script (prebuild-install)
 * finds its native addon as a local prebuild, packed from the one `npm ci` compiled for this
 * checkout, instead of downloading it or compiling it again for two minutes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface LockEntry {
  version?: string;
  license?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  [field: string]: unknown;
}

interface Lockfile {
  packages: Record<string, LockEntry>;
}

/** Runs `npm pack` on the checkout as it is (dist/ already built) and returns the tarball. */
export function packTarball(destination: string): string {
  const output = execFileSync(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
    { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const [packed] = JSON.parse(output) as { filename: string }[];
  if (packed === undefined) throw new Error('npm pack printed no tarball');
  return join(destination, packed.filename);
}

/**
 * The lockfile of an app whose one dependency is the tarball: mailtwin's locked packages that
 * are not development-only, with mailtwin itself resolved to the file.
 */
export function appLockfile(tarball: string, tarballSpec: string): Lockfile {
  const own = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
  const root = own.packages[''];
  if (root === undefined) throw new Error('package-lock.json has no root package');
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Record<string, LockEntry> = {
    '': { name: 'mailtwin-package-test', dependencies: { mailtwin: tarballSpec } },
    'node_modules/mailtwin': {
      version: root.version,
      resolved: tarballSpec,
      integrity,
      license: root.license,
      dependencies: root.dependencies,
      bin: root.bin,
      engines: root.engines,
    },
  };
  for (const [path, entry] of Object.entries(own.packages)) {
    if (path !== '' && entry.dev !== true) packages[path] = entry;
  }
  return {
    name: 'mailtwin-package-test',
    lockfileVersion: 3,
    requires: true,
    packages,
  } as Lockfile;
}

/**
 * A folder holding better-sqlite3's native addon as prebuild-install names a download
 * (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`), made from the addon
 * this checkout's `npm ci` built.
 */
export function localPrebuilds(folder: string): string {
  const addonRoot = join(REPO_ROOT, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(addonRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(folder, { recursive: true });
  execFileSync('tar', [
    '-czf',
    join(folder, name),
    '-C',
    addonRoot,
    'build/Release/better_sqlite3.node',
  ]);
  return folder;
}

/** Installs the tarball into `app` (an empty folder) offline; returns npm's output. */
export function installOffline(app: string, tarball: string, prebuilds: string): string {
  mkdirSync(app, { recursive: true });
  const spec = `file:${tarball}`;
  const manifest = {
    name: 'mailtwin-package-test',
    private: true,
    type: 'module',
    dependencies: { mailtwin: spec },
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(app, 'package-lock.json'),
    JSON.stringify(appLockfile(tarball, spec), null, 2),
  );
  return execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
    cwd: app,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_better_sqlite3_local_prebuilds: prebuilds,
      SCARF_ANALYTICS: 'false', // swagger-ui-dist's install-time analytics: never phone home
    },
  });
}
