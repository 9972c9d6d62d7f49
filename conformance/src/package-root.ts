import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding mailtwin's package.json: the checkout, or `node_modules/mailtwin` once
 * installed. Found by walking up from this module, so the suite's sources (conformance/src) and
 * their compiled copy (dist/conformance/src) read the same rules, spec and package.json. The
 * suite's own copy of the emulator's helper: the suite imports nothing of the emulator but its
 * in-process entry point (.dependency-cruiser.cjs).
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A file of the package, from a path relative to its root, e.g. `conformance/rules.yaml`. */
export function packagePath(relative: string): string {
  return join(PACKAGE_ROOT, relative);
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isMailtwinPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) {
      throw new Error(`mailtwin-conformance: no package.json named "mailtwin" above ${start}`);
    }
  }
}

function isMailtwinPackage(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'mailtwin';
  } catch {
    return false;
  }
}
