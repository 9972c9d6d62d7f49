import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding mailtwin's package.json: the checkout, or `node_modules/mailtwin` once
 * installed from the package. Found by walking up from this module, so the TypeScript sources
 * (emulator/src) and their compiled copy (dist/emulator/src) read the same spec, fixtures and
 * package.json, which are never compiled.
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A file of the package, from a path relative to its root, e.g. `spec/openapi.yaml`. */
export function packagePath(relative: string): string {
  return join(PACKAGE_ROOT, relative);
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isMailtwinPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) {
      throw new Error(`mailtwin: no package.json named "mailtwin" above ${start}`);
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
