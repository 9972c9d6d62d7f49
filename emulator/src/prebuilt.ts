import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packagePath } from './package-root.ts';

/**
 * What `npm run build` computed once so that no start computes it (bin/build.js runs
 * commands/prebuild.ts): the two contracts parsed from YAML, the demo fixture validated and its
 * `.eml` files parsed. Without it (no build, an edited spec or fixture) the same work is simply
 * done at start, slower.
 */
export const PREBUILT_PATH = packagePath('dist/prebuilt.json');

/** Whether this module is compiled code in dist/, made by the build that wrote PREBUILT_PATH. */
const COMPILED = fileURLToPath(import.meta.url).endsWith('.js');

/**
 * Where a result is kept: a SHA-256 of its kind and of everything it was computed from, each
 * input with its length first (two inputs can never run together), so a result is found only
 * for the very input that made it.
 */
export function prebuiltKey(kind: string, inputs: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256').update(`${kind}\0`);
  for (const input of inputs) hash.update(`${Buffer.byteLength(input)}\0`).update(input);
  return hash.digest('hex');
}

/** The results of one build, by prebuiltKey. */
export class Prebuilt {
  constructor(
    private readonly entries: Readonly<Record<string, unknown>>,
    /** Whether the code asking is the build's own compiled code. */
    private readonly compiled: boolean = COMPILED,
  ) {}

  /** Reads a build's results; none when there is no build or its file is unreadable. */
  static read(path: string = PREBUILT_PATH, compiled: boolean = COMPILED): Prebuilt {
    try {
      const { entries } = JSON.parse(readFileSync(path, 'utf8')) as { entries?: unknown };
      if (typeof entries === 'object' && entries !== null) {
        return new Prebuilt(entries as Record<string, unknown>, compiled);
      }
    } catch {
      // Not built (a fresh checkout run through tsx), or damaged: compute everything.
    }
    return new Prebuilt({}, compiled);
  }

  /**
   * The build's result for `kind` on `inputs`, if it made one. A result that our own code
   * decides (`dependsOnCode`: a fixture's validation, a message's parse) is given only to the
   * compiled code of that same build, never to sources edited since, run by tsx or vitest; a
   * YAML parse depends on the text alone (and the pinned `yaml` package), so every run uses it.
   */
  get(kind: string, inputs: readonly (string | Uint8Array)[], dependsOnCode: boolean): unknown {
    if (dependsOnCode && !this.compiled) return undefined;
    return this.entries[prebuiltKey(kind, inputs)];
  }
}

let installed: Prebuilt | undefined;

/** This package's build outputs (PREBUILT_PATH), read once per process, on first use. */
export function buildOutputs(): Prebuilt {
  installed ??= Prebuilt.read();
  return installed;
}
