/**
 * .ci/run installs only what a package needs to run, never what Debian merely recommends
 * (issue 12 item 21): chromium's recommendations pull in about a hundred packages (avahi,
 * cups, samba libraries, systemd, perl) that a headless browser check never uses, and that
 * make a CI machine slower to set up and larger to trust. Whatever the checks do need is
 * named in .ci/run explicitly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The shell commands of a script, a line each, with backslash-continued lines joined. */
export function commandsOf(script: string): string[] {
  return script
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** The commands that install Debian packages (apt-get or apt, any options, then `install`). */
export function aptInstalls(script: string): string[] {
  return commandsOf(script).filter((command) =>
    /(?:^|[\s;&|"'(])apt(?:-get)?(?:\s+-\S+)*\s+install\b/.test(command),
  );
}

describe('.ci/run', () => {
  const script = readFileSync(join(ROOT, '.ci/run'), 'utf8');

  it('installs Debian packages with --no-install-recommends every time', () => {
    const installs = aptInstalls(script);
    expect(installs.length, 'apt-get install commands in .ci/run').toBeGreaterThan(0);
    expect(installs.filter((command) => !/\s--no-install-recommends\b/.test(command))).toEqual([]);
  });

  it('still installs chromium for the browser check, openssl for the signature vectors, swaks for SMTP, curl and jq for the README recipes', () => {
    const packages = aptInstalls(script).flatMap((command) =>
      command
        .replace(/^.*?\binstall\b/, '')
        .split(/\s+/)
        .filter((word) => word !== '' && !word.startsWith('-')),
    );
    expect(packages).toEqual(
      expect.arrayContaining(['chromium', 'openssl', 'swaks', 'curl', 'jq']),
    );
  });
});

describe('aptInstalls', () => {
  it('finds installs however they are written, and nothing else', () => {
    const script = [
      '#!/usr/bin/env bash',
      '# apt-get install in a comment is no command',
      'apt-get update',
      '"${as_root[@]}" apt-get install -y chromium',
      'sudo apt-get -q install -y \\',
      '  --no-install-recommends openssl',
      'apt install wrk',
      'apt-cache policy chromium',
      'echo installing',
    ].join('\n');
    expect(aptInstalls(script)).toEqual([
      '"${as_root[@]}" apt-get install -y chromium',
      'sudo apt-get -q install -y    --no-install-recommends openssl',
      'apt install wrk',
    ]);
  });
});
