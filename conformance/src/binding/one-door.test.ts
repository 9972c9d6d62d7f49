/**
 * Issue 26 item 4: every decided name the checks use reaches the target through its binding.
 * Checks, worlds and the model speak the default binding's names; the one place a request
 * leaves and an answer comes back is the client (client/client.ts), which translates both
 * through the target's binding (binding/dialect.ts). This test holds that door: no other
 * module of the suite sends a request of its own, and the suite parses bindings with code of
 * its own, importing nothing of the emulator's renaming (the oracle shares no code with what
 * it judges). npm run variants:bindings shows the same from outside: no documented rule is
 * lost to a renamed field, status, code or folder.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';

/** Modules that may send a request themselves, each for a reason of its own. */
const SENDERS: Record<string, string> = {
  'conformance/src/client/client.ts': 'the door: translates every API request and answer',
  'conformance/src/cli/preflight.ts':
    'asks GET /mailboxes before any check, reading the answer through the dialect',
  'conformance/src/binding/target-binding.ts': "reads the target's published document",
  'conformance/src/check-runner/check.ts': "reads the target's published document in each worker",
  'conformance/src/worlds/targets.ts': 'builds the target: the in-process app or fetch itself',
  'conformance/src/client/target.ts': 'declares the `fetch` every target answers (sends nothing)',
};

function suiteFiles(dir: string): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return suiteFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const FILES = [...suiteFiles('conformance/src'), ...suiteFiles('conformance/checks')];

describe("the suite's one door to a target", () => {
  it('sends requests only through the client, and the few modules that say why', () => {
    const sending = FILES.filter((file) =>
      /\bfetch\(|new Request\(/.test(readFileSync(join(PACKAGE_ROOT, file), 'utf8')),
    );
    expect(sending.sort()).toEqual(Object.keys(SENDERS).sort());
  });

  it("imports nothing of the emulator's binding code", () => {
    const importing = FILES.filter((file) =>
      /from ['"][^'"]*emulator\/src\/binding\//.test(
        readFileSync(join(PACKAGE_ROOT, file), 'utf8'),
      ),
    ).map((file) => relative('.', file));
    // Building the in-process emulator hands it the file to speak (emulator/src/in-process.ts,
    // the suite's one entry into the emulator); nothing is translated with it.
    expect(importing).toEqual([]);
  });
});
