/**
 * The V8 flags bin/mailtwin.js sets in the emulator's process (bin/v8-flags.js, issue 31 item 2).
 * Checked through V8's cached-data version tag, a hash of its version and of every flag's value:
 * a process that applied the flags has the tag of one started with them on the command line.
 * (What the flag saves, promotion during mail parsing, varies from run to run: V8 pretenures an
 * allocation site only when a scavenge finds its objects alive, so it is measured, not asserted.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the bin scripts, without type declarations
import { V8_FLAGS } from '../../bin/v8-flags.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The version tag of a node process given `flags`, after running `script` (an ES module). */
function versionTag(flags: string[], script = ''): string {
  return execFileSync(
    process.execPath,
    [
      ...flags,
      '--input-type=module',
      '-e',
      `${script}\nconsole.log((await import('node:v8')).cachedDataVersionTag());`,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  ).trim();
}

describe('V8 flags of the emulator process', () => {
  it('turn off allocation-site pretenuring', () => {
    expect(V8_FLAGS).toContain('--no-allocation-site-pretenuring');
  });

  it('are in effect once applied, as if given to node', () => {
    const applied = versionTag([], "(await import('./bin/v8-flags.js')).applyV8Flags();");
    expect(applied).toBe(versionTag(V8_FLAGS as string[]));
    expect(applied).not.toBe(versionTag([]));
  });

  it('are applied by bin/mailtwin.js before the emulator loads', () => {
    const bin = readFileSync(`${ROOT}bin/mailtwin.js`, 'utf8');
    expect(bin).toMatch(/import \{ applyV8Flags \} from '\.\/v8-flags\.js';/);
    expect(bin.indexOf('applyV8Flags();')).toBeGreaterThan(-1);
    expect(bin.indexOf('applyV8Flags();')).toBeLessThan(bin.indexOf('await loadMain('));
  });
});
