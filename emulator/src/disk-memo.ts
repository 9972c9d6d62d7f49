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
 * Results of slow, pure work (parsing YAML, validating a fixture, parsing a `.eml` file) kept as
 * files named by a SHA-256 of everything the result depends on: the input, and `codeIdentity`,
 * which stands for the code that computed it. A changed input or changed code is a new name,
 * so a stale result can never be read. Written whole or not at all (a rename), so processes
 * starting side by side are safe; any failure to read or write just means computing again.
 */
export class DiskMemo {
  constructor(
    private readonly dir: string,
    private readonly codeIdentity: string,
    /** Every build is a new code identity: beyond this many files the oldest are removed. */
    private readonly maxFiles = 256,
  ) {}

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
      mkdirSync(this.dir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, text);
      renameSync(partial, file);
      this.prune();
    } catch {
      // A read-only install: compute every time.
    }
  }

  /** Keeps the newest `maxFiles` files (a write is a miss, so this runs rarely). */
  private prune(): void {
    const files = readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    if (files.length <= this.maxFiles) return;
    const byAge = files
      .map((name) => ({
        path: join(this.dir, name),
        mtimeMs: statSync(join(this.dir, name)).mtimeMs,
      }))
      .sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const { path } of byAge.slice(0, files.length - this.maxFiles))
      rmSync(path, { force: true });
  }

  private fileFor(kind: string, inputs: (string | Uint8Array)[]): string {
    const hash = createHash('sha256').update(`${kind}\0${this.codeIdentity}\0`);
    // Each input with its length first, so two inputs can never run together into the same bytes.
    for (const input of inputs) hash.update(`${Buffer.byteLength(input)}\0`).update(input);
    return join(this.dir, `${kind}-${hash.digest('hex')}.json`);
  }
}

/**
 * A memo for work whose result depends on mailtwin's compiled code and its installed
 * dependencies, identified by the build stamp of dist/ (a hash of the sources it was compiled
 * from) and npm's record of the installed tree (`node_modules/.package-lock.json`). Null when
 * running the TypeScript sources, or when either record is missing: then nothing is kept.
 */
export function memoForInstalledCode(dir: string = DEFAULT_MEMO_DIR): DiskMemo | null {
  if (!fileURLToPath(import.meta.url).endsWith('.js')) return null;
  try {
    // Its first line, the hash of the sources' content (bin/compiled.js).
    const stamp = readFileSync(packagePath('dist/.sources-sha256'), 'utf8').split('\n')[0]!;
    const tree = installedTreeRecord();
    if (tree === undefined) return null;
    return new DiskMemo(dir, `${stamp}\0${createHash('sha256').update(tree).digest('hex')}`);
  } catch {
    return null;
  }
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
