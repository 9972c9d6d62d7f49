import { describe, expect, it } from 'vitest';
import { textOfHtml } from './html-text.ts';

describe('textOfHtml', () => {
  it('turns HTML into its text', () => {
    expect(textOfHtml('<h1>Invoice</h1><p>Due <b>Friday</b>.</p>')).toBe('INVOICE\n\nDue Friday.');
  });

  it('leaves out what is nested deeper than 64 elements, and keeps what is not', () => {
    const nest = (depth: number, text: string) =>
      `${'<span>'.repeat(depth)}${text}${'</span>'.repeat(depth)}`;
    expect(textOfHtml(nest(60, 'shallow'))).toBe('shallow');
    expect(textOfHtml(nest(100, 'deep'))).not.toContain('deep');
  });
});
