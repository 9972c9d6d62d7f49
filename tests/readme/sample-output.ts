/**
 * The README's sample outputs, held to what a run prints (issue 27 item 8: samples had drifted
 * to `[92/92]`, 156 rules and decided 37/37 while runs printed 113 checks and 163 rules). A
 * sample is the whole output, line by line, with one placeholder the README explains: a line
 * holding only `…` stands for any number of lines, and `…` inside a line for any text. All else
 * must be printed exactly so, numbers included, so a sample that drifts fails the test.
 */

/** A block of sample output: the lines after `<!-- output: name -->` in a ```text fence. */
export function sampleBlocks(readme: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- output: ([\w-]+) -->\n+```text\n([\s\S]*?)```/g)) {
    found.set(match[1]!, match[2]!);
  }
  return found;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The regular expression of the first `count` sample lines (all of them when undefined). */
function patternOf(lines: readonly string[]): string {
  return lines
    .map((line) =>
      line === '…' ? '(?:[^\\n]*\\n)*?' : `${line.split('…').map(escape).join('[^\\n]*?')}\\n`,
    )
    .join('');
}

/**
 * Why `output` is not what `sample` shows, naming the first sample line no run of the output
 * matches in order; undefined when it is. Trailing blank lines of either are ignored.
 */
export function sampleMismatch(sample: string, output: string): string | undefined {
  const lines = sample.replace(/\n+$/, '').split('\n');
  const text = `${output.replace(/\n+$/, '')}\n`;
  if (new RegExp(`^${patternOf(lines)}$`).test(text)) return undefined;
  let matched = 0;
  while (
    matched < lines.length &&
    new RegExp(`^${patternOf(lines.slice(0, matched + 1))}`).test(text)
  )
    matched += 1;
  return matched === lines.length
    ? `the output goes on after the sample's last line ${JSON.stringify(lines.at(-1))}:\n${text}`
    : `sample line ${matched + 1}, ${JSON.stringify(lines[matched])}, is not where the output has it:\n${text}`;
}
