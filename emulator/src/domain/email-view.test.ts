import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snippetOf } from './email-view.ts';

describe('snippets (D-3)', () => {
  it('are empty for an email without a text body', () => {
    expect(snippetOf(null)).toBe('');
  });

  it('collapse every run of whitespace to one space and trim the ends', () => {
    expect(snippetOf('  Hello \n\n  world\t!  ')).toBe('Hello world !');
    expect(snippetOf('a  b')).toBe('a b');
  });

  it('keep 200 code points whole and cut longer text at 200, counting an astral character once', () => {
    const exactly = '😀'.repeat(200);
    expect(snippetOf(exactly)).toBe(exactly);
    expect(snippetOf(`${exactly}x`)).toBe(exactly);
    expect(snippetOf(`${'a'.repeat(199)}  b c`)).toBe(`${'a'.repeat(199)} `);
    expect(snippetOf(`${'a'.repeat(200)} b`)).toBe('a'.repeat(200));
  });

  it('equal the whole text collapsed, trimmed and cut at 200 code points, for any text', () => {
    const naive = (text: string) => [...text.replace(/\s+/g, ' ').trim()].slice(0, 200).join('');
    const pieces = fc.constantFrom(' ', '\n', '\t', '\u00a0', '\u2028', 'a', 'é', '😀', 'word');
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 400 }),
      fc.array(pieces, { maxLength: 500 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(snippetOf(t)).toBe(naive(t));
      }),
      { seed: 42 },
    );
  });
});
