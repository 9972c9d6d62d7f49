import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { formatJUnitReport, xmlSafe } from './junit.ts';
import { SAMPLE_FACTS, TRICKY_SENTENCE, sampleSummary, withHarnessRule } from './sample.ts';

type Node = Record<string, unknown>;
const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function parse(xml: string, characterReferences = false) {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
    // fast-xml-parser decodes character references (&#10;) only along with HTML's entities.
    htmlEntities: characterReferences,
  });
  return parser.parse(xml) as { testsuites: Node & { testsuite: Node[] } };
}

const xml = formatJUnitReport(sampleSummary(), SAMPLE_FACTS);

describe('formatJUnitReport', () => {
  it('is well-formed XML 1.0, with no character XML forbids and no raw < in an attribute', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    for (const [, value] of xml.matchAll(/="([^"]*)"/g))
      expect(value).not.toMatch(/[<>&](?!(?:amp|lt|gt|quot|apos|#\d+);)/);
  });

  it('gives the tricky sentence back exactly after parsing: quotes, <, > and & escaped', () => {
    const suites = parse(xml).testsuites.testsuite;
    const names = suites.flatMap((s) => asArray(s.testcase as Node[])).map((c) => c.name);
    expect(names).toContain(`4.3-R1 ${TRICKY_SENTENCE}`);
  });

  it('has one suite per section, decided rules in their own, and one for suite problems', () => {
    const suites = parse(xml).testsuites.testsuite;
    expect(suites.map((s) => s.name)).toEqual([
      '§4.1',
      '§4.2',
      '§4.3',
      '§6.2',
      '§9',
      'Decided (spec/DECISIONS.md)',
      'Suite problems and certification',
    ]);
  });

  it('has one testcase per rule, classname the section, name "<id> <sentence>"', () => {
    const suites = parse(xml).testsuites.testsuite;
    const first = asArray(suites[0]!.testcase as Node[]);
    expect(first).toEqual([
      expect.objectContaining({ classname: '§4.1', name: '4.1-R1 Sentence of 4.1-R1.' }),
    ]);
  });

  it('puts the failure text, without colour codes or control characters, in <failure>', () => {
    const suite = parse(xml).testsuites.testsuite.find((s) => s.name === '§4.3')!;
    expect(suite).toMatchObject({ tests: '1', failures: '1', skipped: '0', errors: '0' });
    const failure = (suite.testcase as Node).failure as Node;
    expect(failure.message).toBe(
      'Rule broken while checking that it refuses "bad" <input> & more:',
    );
    expect(failure.type).toBe('documented');
    expect(failure['#text']).toMatch(/^charged to 4\.3-R1\n/);
    expect(failure['#text']).toContain('expected 400, got 200 \ufffdbell');
    expect(failure['#text']).toContain(`--data-binary '{"to":"a@b.test"}'`);
  });

  it('marks a skipped rule skipped with its reason, and an unchecked one as having no check', () => {
    const suites = parse(xml).testsuites.testsuite;
    const skipped = (suites.find((s) => s.name === '§6.2')!.testcase as Node).skipped as Node;
    expect(skipped.message).toBe('needs a webhook receiver the target can reach');
    const unchecked = (suites.find((s) => s.name === '§9')!.testcase as Node).skipped as Node;
    expect(unchecked.message).toBe('no check covers this rule yet');
  });

  it('lets a warning pass, with the text in system-out', () => {
    const suite = parse(xml).testsuites.testsuite.find((s) =>
      String(s.name).startsWith('Decided'),
    )!;
    expect(suite).toMatchObject({ failures: '0', skipped: '0' });
    const testcase = suite.testcase as Node;
    expect(testcase.failure).toBeUndefined();
    expect(String(testcase['system-out'])).toMatch(/^WARN: a decided rule failed/);
  });

  it('reports problems with the suite as errors, and totals on <testsuites>', () => {
    const root = parse(xml).testsuites;
    expect(root).toMatchObject({
      tests: '7',
      failures: '1',
      errors: '1',
      skipped: '2',
      time: '12.345',
    });
    const problem = root.testsuite.at(-1)!.testcase as Node;
    expect((problem.error as Node).message).toBe(
      'conformance/checks/broken.check.ts did not load: SyntaxError <oops> & "more"',
    );
  });

  it('keeps line breaks, tabs and apostrophes of a message through a parser', () => {
    const message = "line one\n\tline 'two' & <three>\r\nend";
    const problems = formatJUnitReport(
      sampleSummary({ problems: [message], refusals: [] }),
      SAMPLE_FACTS,
    );
    expect(XMLValidator.validate(problems)).toBe(true);
    const error = (parse(problems, true).testsuites.testsuite.at(-1)!.testcase as Node)
      .error as Node;
    expect(error.message).toBe(message);
    expect(error['#text']).toBe(message.replace(/\r\n/g, '\n'));
  });

  it('lists certify refusals as errors', () => {
    const refused = formatJUnitReport(
      sampleSummary({ problems: [], refusals: ['skipped x "y": needs z'] }),
      { ...SAMPLE_FACTS, profile: 'certify' },
    );
    expect(XMLValidator.validate(refused)).toBe(true);
    const last = parse(refused).testsuites.testsuite.at(-1)!;
    expect(((last.testcase as Node).error as Node).message).toBe('skipped x "y": needs z');
  });

  it('records target, seed, runs and profile as suite properties', () => {
    const suite = parse(xml).testsuites.testsuite[0]!;
    const properties = asArray((suite.properties as Node).property as Node[]);
    expect(Object.fromEntries(properties.map((p) => [p.name, p.value]))).toEqual({
      target: 'https://mail.example.com/openapi/v1',
      seed: '42',
      numRuns: '50',
      profile: 'full',
    });
  });
});

describe('xmlSafe', () => {
  it('removes colour codes and replaces characters XML 1.0 cannot carry', () => {
    expect(xmlSafe('\u001b[1;31mred\u001b[0m\u0000\u0008\t\n\r\ud800x\udc00😀')).toBe(
      'red\ufffd\ufffd\t\n\r\ufffdx\ufffd😀',
    );
  });
});

describe('formatJUnitReport: rules that need the harness (issue 15 item 5)', () => {
  it('marks a rule left to the harness skipped, saying what it needs', () => {
    const harness = formatJUnitReport(withHarnessRule(sampleSummary()), SAMPLE_FACTS);
    expect(XMLValidator.validate(harness)).toBe(true);
    const suite = parse(harness).testsuites.testsuite.find((s) => s.name === '§6.4')!;
    expect(suite.skipped).toBe('1');
    expect(((suite.testcase as Node).skipped as Node).message).toBe('needs the harness: clock');
  });
});
