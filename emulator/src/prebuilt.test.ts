import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from './package-root.ts';
import { PREBUILT_PATH, Prebuilt, prebuiltKey } from './prebuilt.ts';
import { loadSpec } from './spec.ts';

const text = (path: string) => readFileSync(packagePath(path), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-prebuilt-'));

describe('Prebuilt', () => {
  it('tells inputs apart however their bytes would run together, and kinds apart', () => {
    expect(prebuiltKey('k', ['ab', 'c'])).not.toBe(prebuiltKey('k', ['a', 'bc']));
    expect(prebuiltKey('k', ['ab', 'c'])).not.toBe(prebuiltKey('k2', ['ab', 'c']));
    expect(prebuiltKey('k', [Buffer.from('ab')])).toBe(prebuiltKey('k', ['ab']));
  });

  it("gives a result our code decides only to that build's compiled code; a YAML parse to all", () => {
    const entries = { [prebuiltKey('eml', ['x'])]: 'parsed', [prebuiltKey('yaml', ['y'])]: 'y' };
    expect(new Prebuilt(entries, true).get('eml', ['x'], true)).toBe('parsed');
    expect(new Prebuilt(entries, false).get('eml', ['x'], true)).toBeUndefined();
    expect(new Prebuilt(entries, false).get('yaml', ['y'], false)).toBe('y');
  });

  it('has nothing when there is no build or its file is damaged', () => {
    const damaged = join(scratch, 'damaged.json');
    writeFileSync(damaged, '{"entries":');
    for (const path of [join(scratch, 'none.json'), damaged]) {
      expect(Prebuilt.read(path, true).get('yaml', [text('spec/openapi.yaml')], false)).toBe(
        undefined,
      );
    }
  });
});

describe('dist/prebuilt.json, as npm run build wrote it (npm test builds first)', () => {
  const built = Prebuilt.read(PREBUILT_PATH, true);

  it('holds both contracts exactly as parsing their YAML gives them', () => {
    for (const contract of ['spec/openapi.yaml', 'spec/control.yaml']) {
      const kept = built.get('yaml', [text(contract)], false);
      expect(kept, `${contract} is not in dist/: run \`npm run build\``).toBeDefined();
      expect(kept).toStrictEqual(parse(text(contract)));
    }
  });

  it("holds the demo fixture's validation and the parse of each of its five .eml files", () => {
    const demo = JSON.parse(text('fixtures/demo.json')) as { emails: { eml?: string }[] };
    const inputs = [text('fixtures/fixture.schema.json'), JSON.stringify(demo)];
    expect(built.get('valid-fixture', inputs, true)).toBe(true);
    const emls = demo.emails.flatMap((email) => (email.eml === undefined ? [] : [email.eml]));
    expect(emls).toHaveLength(5);
    for (const eml of emls) {
      const raw = readFileSync(packagePath(`fixtures/${eml}`));
      expect(built.get('eml', [raw], true), eml).toMatchObject({ content: expect.anything() });
    }
  });
});

describe('loadSpec', () => {
  it('gives what parsing the YAML gives, for a contract the build kept and for any other text', () => {
    expect(loadSpec()).toStrictEqual(parse(text('spec/openapi.yaml')));
    const other = join(scratch, 'other.yaml');
    writeFileSync(other, `openapi: 3.1.0\na: .inf\nb: [1, {c: null}]\n# ${Date.now()}\n`);
    expect(loadSpec(other)).toStrictEqual(parse(readFileSync(other, 'utf8')));
  });
});
