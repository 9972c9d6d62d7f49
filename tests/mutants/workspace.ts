/**
 * Copies of the repository to change, and child processes to run in them: shared by
 * `npm run can-fail` (named mutants) and `npm run variants` (conformant variants).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this file belongs to. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Directories a copy of the repository does without (node_modules is linked, not copied). */
const NOT_COPIED = new Set([
  'node_modules',
  '.git',
  'reports',
  '.stryker-tmp',
  'conformance-report',
  '.tmp',
]);

/** A copy of the repository to change, sharing node_modules with this one. */
export function makeWorkspace(prefix = 'mailtwin-mutant-'): string {
  const workspace = mkdtempSync(join(tmpdir(), prefix));
  cpSync(REPO_ROOT, workspace, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(relative(REPO_ROOT, source).split('/')[0] ?? ''),
  });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(workspace, 'node_modules'), 'dir');
  return workspace;
}

/** A child node process; killed when it outlives `timeoutMs` (a hung run is no result). */
export function runChild(
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
