// Issue 29 item 4: the README is a README (what it is, the two commands, the recipes, where to
// read more) and the reference lives in docs/, one page each, linked from it. This keeps it so:
// a README grown past 12 kB, a reference page no longer linked, or a link to a file that is not
// there fails here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the README', () => {
  it('is at most 12 kB, with no line wider than 200 characters', () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(12_000);
    expect(README.split('\n').filter((line) => line.length > 200)).toEqual([]);
  });

  it('has the two commands: one installs and starts the emulator, one installs and runs every test', () => {
    expect(README).toContain('```sh\nnpm ci && npm start\n```');
    expect(README).toContain('```sh\nbash .ci/run\n```');
    expect(README).toMatch(/^MAILTWIN_BASE_URL=/m);
    expect(README).toMatch(/^MAILTWIN_API_KEY=/m);
    expect(README).toMatch(/^MAILTWIN_WEBHOOK_SECRET=/m);
  });

  it.each([
    'docs/serve.md',
    'docs/control-plane.md',
    'docs/dashboard.md',
    'docs/suite-options.md',
    'docs/profiles.md',
    'docs/reports.md',
    'docs/ci.md',
  ])('links the reference page %s', (page) => {
    expect(existsSync(join(ROOT, page))).toBe(true);
    expect(README).toContain(`](${page}`);
  });
});

describe('links between the README and docs/', () => {
  it.each(PAGES)('%s links only to files that exist', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .filter((target) => !existsSync(normalize(join(ROOT, dirname(page), target.split('#')[0]!))));
    expect(broken).toEqual([]);
  });
});
