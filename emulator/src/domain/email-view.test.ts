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
  });
});
