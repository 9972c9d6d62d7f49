/**
 * Valid and invalid values per format: free text and odd Unicode counted in code points (D-9),
 * addresses and display names (D-11), dates (D-18) and search words (D-13), as fast-check
 * arbitraries and sample lists.
 */
import fc from 'fast-check';
import { EXTERNAL_DOMAIN } from './prose.ts';
import type { RequestContext } from './request-types.ts';

export const codePoints = (s: string): number => [...s].length;
/** `s` cut to at most `max` code points (D-9 counts code points). */
export const clip = (s: string, max: number) =>
  codePoints(s) <= max ? s : [...s].slice(0, max).join('');
/** §2.6: no `{{` outside a deliberate template, so no variable is used by chance. */
const noTemplates = (s: string) => s.replace(/\{(?=\{)/g, '{ ');

/**
 * Odd Unicode: all of it valid text (JSON cannot carry a lone surrogate), none of it may cause
 * a 5xx.
 */
export const ODD_UNICODE: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\u200F\u202Eevil\u202C\u200E',
  '\u200B\u200C\u200D\u2060',
  '\uFEFFbom',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈🇫🇷🇯🇵',
  `e${'\u0301'.repeat(300)}`,
  'Z̵̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓',
  '\u{10FFFF}\u{E0001}\uFFFD\uFFFE\uFFFF',
  'line\u2028sep\u2029para',
  '﷽',
  '𝕳𝖊𝖑𝖑𝖔 𝔀𝓸𝓻𝓵𝓭',
  '\u1100\u1161\u11A8 각',
  'ﬁ ß İ ı ǅ',
  'tab\there\u000Bv\u000Cf',
  '\u0007\u001B[31mred\u001B[0m\u007F\u0085',
  'crlf\r\nBcc: spy@external.conformance.test\r\n\r\nbody',
  '"quoted" \\ back\\slash </p><script>x</script>',
  'मनीष 你好 مرحبا שלום',
];

/** The same, for display names and file names: no control characters and no delimiters. */
export const ODD_NAMES: readonly string[] = [
  '👩‍👩‍👧‍👦 Family',
  '\u202Eevil\u202C name',
  `e${'\u0301'.repeat(120)}`,
  'Zoë Müller-Straße',
  '李小龍',
  'مرحبا שלום',
  '𝕳𝖊𝖑𝖑𝖔',
  '\u200B\u2060zero width',
  'ﬁ ß İ',
];

/** One code point each, astral ones included, so lengths count code points (D-9). */
const FILLER = ['a', 'Z', '0', ' ', 'é', '中', '😀', '\u0301', '\u200F', '𝕳', 'ß', '🇫'];
export const NAME_FILLER = ['a', 'Z', 'é', '中', '😀', '\u0301', '𝕳', 'ß', 'N'];

export function filler(length: number, pool: readonly string[] = FILLER): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...pool), { minLength: length, maxLength: length })
    .map((a) => a.join(''));
}

/** Free text: printable graphemes, any code point, or an odd Unicode sample. */
export function freeText(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, 60);
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: cap }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: cap }) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD_UNICODE) },
    )
    .map((s) => clip(noTemplates(s), max))
    .map((s) => (codePoints(s) >= min ? s : s + 'x'.repeat(min - codePoints(s))));
}

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const localPart = fc.stringMatching(new RegExp(`^${ATEXT}{1,12}(\\.${ATEXT}{1,8}){0,2}$`));

const displayName = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z .'-]{0,20}[A-Za-z]$/) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_NAMES) },
  )
  .map((s) => s.trim())
  .filter((s) => s !== '');

/** An address the suite may send to: the tenant's, or one of its own external addresses. */
export function recipientAddress(context: RequestContext): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...context.mailboxes),
    fc
      .tuple(localPart, fc.constantFrom(EXTERNAL_DOMAIN, 'EXTERNAL.Conformance.TEST'))
      .map(([l, d]) => `${l}@${d}`),
  );
}

/** `address` or `Name <address>` (D-11, §4.3). */
export function withName(address: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    address,
    fc.tuple(displayName, address).map(([n, a]) => `${n} <${a}>`),
  );
}

/** D-11: not `local@domain` nor `Name <local@domain>`; every domain is the suite's own. */
export const INVALID_ADDRESSES: readonly string[] = [
  'plainaddress',
  'no-at-sign.external.conformance.test',
  '@external.conformance.test',
  'local@',
  'a..b@external.conformance.test',
  '.a@external.conformance.test',
  'a.@external.conformance.test',
  'a b@external.conformance.test',
  '"quoted"@external.conformance.test',
  'a@@external.conformance.test',
  'a@external..conformance.test',
  'a@exa_mple.conformance.test',
  'a\u0000b@external.conformance.test',
  'jöhn@external.conformance.test',
  'a(comment)@external.conformance.test',
  'Name <a@external.conformance.test',
  'Name a@external.conformance.test>',
  '<>',
  'Name <>',
  '',
  ' ',
  'a@external.conformance.test, b@external.conformance.test',
  'a@external.conformance.test b@external.conformance.test',
  'a@external.conformance.test\r\nBcc: b@external.conformance.test',
  `${Array.from({ length: 4 }, () => 'x'.repeat(63)).join('.')}@external.conformance.test`,
];

export const UUID = fc.uuid({ version: 4 });

/** D-18: the accepted spellings, with their instants. */
export const dateValue: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }),
    fc.constantFrom('iso', 'seconds', 'offset', 'date'),
    fc.integer({ min: -14 * 4, max: 14 * 4 }),
  )
  .map(([ms, style, quarters]) => {
    const at = new Date(ms);
    const iso = at.toISOString();
    if (style === 'iso') return iso;
    if (style === 'seconds') return `${iso.slice(0, 19)}Z`;
    if (style === 'date') return iso.slice(0, 10);
    const offset = quarters * 15;
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
    const sign = offset < 0 ? '-' : '+';
    const abs = Math.abs(offset);
    const hh = String(Math.floor(abs / 60)).padStart(2, '0');
    const mm = String(abs % 60).padStart(2, '0');
    return `${local}${sign}${hh}:${mm}`;
  });

/** D-18: not a date at all, or not in an accepted spelling. */
export const INVALID_DATES = [
  '2026-13-01',
  '2026-02-30',
  '2026-10-01T25:00:00Z',
  '2026-10-01T10:00:00',
  '2026/10/01',
  '01/10/2026',
  'yesterday',
  '1700000000',
  '2026-10-01T10:00:00+25:00',
  '2026-1-1',
  'now',
  '\u0000',
];

const SEARCH_WORDS = ['invoice', 'café', 'naïve', 'über', '日本語', 'q3', '2026', 'Ünïcode'];

/** D-13: words, some of them prefixes (`*`), with odd separators. */
export const searchText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9]{1,10}\*?$/),
      fc.constantFrom(...SEARCH_WORDS),
      fc.constantFrom(...ODD_UNICODE).map((odd) => `${odd} word`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((words) => clip(words.join(' '), 500))
  .filter((s) => /[\p{L}\p{N}]/u.test(s));

/** D-13: text with no letter and no digit, so no word. */
export const NO_WORD = [
  '*',
  '***',
  ' ',
  '-',
  '"',
  '!?',
  '😀',
  '\u0000',
  '__',
  '.',
  '\u200B',
  '— –',
];
