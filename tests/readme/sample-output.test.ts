// The placeholder syntax of the README's sample outputs (sample-output.ts), on its own: fast,
// unlike the recipes it serves.
import { describe, expect, it } from 'vitest';
import { sampleBlocks, sampleMismatch } from './sample-output.ts';

describe('sampleMismatch', () => {
  it('takes an output printed exactly as the sample shows', () => {
    expect(sampleMismatch('a\nb 12\n', 'a\nb 12\n')).toBeUndefined();
  });

  it('takes … inside a line as any text, and a line of … as any number of lines', () => {
    const sample = 'id …, done\n…\nResult: conformant for the 37 rules checked\n';
    expect(
      sampleMismatch(sample, 'id 01H, done\nx\ny\nResult: conformant for the 37 rules checked\n'),
    ).toBeUndefined();
    expect(
      sampleMismatch(sample, 'id 01H, done\nResult: conformant for the 37 rules checked'),
    ).toBeUndefined();
  });

  it('refuses a number that drifted, naming the sample line', () => {
    expect(sampleMismatch('Checks: 92\n…\n', 'Checks: 113\nmore\n')).toMatch(
      /^sample line 1, "Checks: 92", is not where the output has it/,
    );
  });

  it('refuses an output that goes on after the sample ends, so the last line shown is the last printed', () => {
    expect(sampleMismatch('Result: ok\n', 'Result: ok\nReport: x\n')).toMatch(
      /goes on after the sample's last line/,
    );
  });

  it('reads each sample block by the name in its marker', () => {
    const readme = 'x\n<!-- output: ci -->\n\n```text\n200\n…\n```\n';
    expect([...sampleBlocks(readme)]).toEqual([['ci', '200\n…\n']]);
  });
});
