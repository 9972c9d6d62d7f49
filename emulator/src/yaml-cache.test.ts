import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseYamlCached } from './yaml-cache.ts';

const contract = (name: string) =>
  readFileSync(new URL(`../../spec/${name}`, import.meta.url), 'utf8');

describe('parseYamlCached', () => {
  it('gives what parsing the YAML gives, for both contracts, first and second time alike', () => {
    for (const name of ['openapi.yaml', 'control.yaml']) {
      const text = contract(name);
      expect(parseYamlCached(text)).toStrictEqual(parse(text));
      expect(parseYamlCached(text)).toStrictEqual(parse(text));
    }
  });

  it('keeps values JSON cannot carry as YAML gives them', () => {
    const text = `a: .inf\nb: -0\nc: [1, {d: null}]\n# ${Date.now()}\n`;
    expect(parseYamlCached(text)).toStrictEqual(parse(text));
    expect(parseYamlCached(text)).toStrictEqual(parse(text));
  });
});
