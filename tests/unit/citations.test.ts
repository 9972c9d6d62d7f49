import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TITLE = 'Email Service API and Inbound Webhooks';
// The document's file outside this repository, which a reader of the repository cannot open.
const OUTSIDE_PATH = new RegExp(['shared', 'seed'].join('/') + '|' + ['000', 'f1d9'].join('_'));

function trackedTextFiles(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((path) => /\.(ts|js|md|ya?ml|json|html)$/.test(path))
    .filter((path) => path !== 'package-lock.json');
}

describe('citations of the service document', () => {
  it('cite it by title and section, never by a path outside the repository', () => {
    const offenders = trackedTextFiles().filter((path) =>
      OUTSIDE_PATH.test(readFileSync(`${ROOT}${path}`, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('name it by its title in both contracts, DECISIONS.md and the rules', () => {
    for (const path of ['spec/openapi.yaml', 'spec/control.yaml']) {
      const document = parse(readFileSync(`${ROOT}${path}`, 'utf8')) as {
        info: { description: string };
      };
      expect(document.info.description, path).toContain(TITLE);
    }
    for (const path of ['spec/DECISIONS.md', 'conformance/rules.yaml']) {
      expect(readFileSync(`${ROOT}${path}`, 'utf8'), path).toContain(TITLE);
    }
  });
});
