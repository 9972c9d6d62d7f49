import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagePath } from './package-root.ts';

/** Beside the dependencies, where tools keep caches (`node_modules/.cache/<tool>`). */
export const DEFAULT_MEMO_DIR = packagePath('node_modules/.cache/mailtwin/');

/**
 * Results of slow work that depends only on its input and on the code doing it (parsing YAML,
 * validating a fixture, parsing a `.eml` file) kept as files named by a SHA-256 of the input
 * and of `codeIdentity`, which stands for the code (and whatever else the result depends on).
 * A changed input or a changed identity is a new name, so a result is read back only for what
 * made it. Written whole or not at all (a rename), so processes starting side by side are safe;
 * any failure to read or write just means computing again.
 */
export class DiskMemo {
  /** This identity's own folder under the memo root: results of other code never mix in. */
  private readonly dir: string;

  constructor(
    private readonly root: string,
    private readonly codeIdentity: string,
    /** Every build is a new identity: only this many identities' folders are kept. */
    private readonly maxIdentities = 8,
  ) {
    this.dir = join(root, createHash('sha256').update(codeIdentity).digest('hex').slice(0, 24));
  }

  /** The stored text for this work on these inputs, if an earlier run kept it. */
  read(kind: string, ...inputs: (string | Uint8Array)[]): string | undefined {
    try {
      return readFileSync(this.fileFor(kind, inputs), 'utf8');
    } catch {
      return undefined; // not kept yet, or unreadable: the caller computes
    }
  }

  write(kind: string, inputs: (string | Uint8Array)[], text: string): void {
    const file = this.fileFor(kind, inputs);
    try {
      const fresh = !existsSync(this.dir);
      mkdirSync(this.dir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, text);
      renameSync(partial, file);
      if (fresh) this.prune();
    } catch {
      // A read-only install: compute every time.
    }
  }

  /**
   * When a new identity's folder appears: removes the folders of all but the newest
   * `maxIdentities` identities (never this one), and files left loose in the root by the
   * memo's earlier one-folder layout.
   */
  private prune(): void {
    const entries = readdirSync(this.root, { withFileTypes: true });
    for (const entry of entries.filter((e) => e.isFile()))
      rmSync(join(this.root, entry.name), { force: true });
    const others = entries
      .filter((e) => e.isDirectory() && join(this.root, e.name) !== this.dir)
      .map((e) => ({
        path: join(this.root, e.name),
        mtimeMs: statSync(join(this.root, e.name)).mtimeMs,
      }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const { path } of others.slice(this.maxIdentities - 1))
      rmSync(path, { recursive: true, force: true });
  }

  private fileFor(kind: string, inputs: (string | Uint8Array)[]): string {
    const hash = createHash('sha256').update(`${kind}\0${this.codeIdentity}\0`);
    // Each input with its length first, so two inputs can never run together into the same bytes.
    for (const input of inputs) hash.update(`${Buffer.byteLength(input)}\0`).update(input);
    return join(this.dir, `${kind}-${hash.digest('hex')}.json`);
  }
}

/**
 * A memo for work whose result depends on mailtwin's compiled code, its installed dependencies
 * and the process it runs in: identified by the build stamp of dist/ (a hash of the sources it
 * was compiled from), npm's record of the installed tree (`node_modules/.package-lock.json`),
 * the Node version, and the local time zone (a `Date:` header without a zone is read as local
 * time). Null when running the TypeScript sources, or when either record is missing: then
 * nothing is kept. What npm does not record (a hand-patched dependency) it cannot see: remove
 * `node_modules/.cache/mailtwin` after one.
 */
export function memoForInstalledCode(root: string = DEFAULT_MEMO_DIR): DiskMemo | null {
  if (!fileURLToPath(import.meta.url).endsWith('.js')) return null;
  try {
    // Its first line, the hash of the sources' content (bin/compiled.js).
    const stamp = readFileSync(packagePath('dist/.sources-sha256'), 'utf8').split('\n')[0]!;
    const tree = installedTreeRecord();
    if (tree === undefined) return null;
    const treeHash = createHash('sha256').update(tree).digest('hex');
    return new DiskMemo(root, [stamp, treeHash, process.version, localTimeProbe()].join('\0'));
  } catch {
    return null;
  }
}

/**
 * Two local noons, winter and summer, as instants: they differ between time zones (and their
 * daylight-saving rules) at a fraction of a millisecond, where asking Intl for the zone's name
 * costs tens of milliseconds at start-up.
 */
function localTimeProbe(): string {
  return [Date.parse('2026-01-15T12:00:00'), Date.parse('2026-07-15T12:00:00')].join(',');
}

/** npm's lockfile of the node_modules folder this package's dependencies were installed in. */
function installedTreeRecord(): Buffer | undefined {
  // Where `mailparser` resolves from is the node_modules of the checkout, or of the app that
  // installed mailtwin (dependencies are hoisted beside it).
  const resolved = createRequire(import.meta.url).resolve('mailparser');
  for (let dir = dirname(resolved); dirname(dir) !== dir; dir = dirname(dir)) {
    if (dir.endsWith('node_modules')) {
      const record = join(dir, '.package-lock.json');
      return existsSync(record) ? readFileSync(record) : undefined;
    }
  }
  return undefined;
}
