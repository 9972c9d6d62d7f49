import { describe, expect, it, vi } from 'vitest';

const hashes = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    createHash: (...args: Parameters<typeof crypto.createHash>) => {
      hashes.count += 1;
      return crypto.createHash(...args);
    },
  };
});

const { encodeCursor, parseListQuery } = await import('./list-query.ts');

describe('the cursor fingerprint of a list query (D-16)', () => {
  it('hashes a filter once, however often it is listed, and still binds cursors to it', () => {
    const query = { mailbox: ['fp@example.test'], folder: ['archive'], q: ['invoice'] };
    const first = parseListQuery(query);
    expect(first.fingerprint).toMatch(/^[\w-]{16}$/);
    const before = hashes.count;
    const again = parseListQuery({ ...query, limit: ['10'] });
    expect(again.fingerprint).toBe(first.fingerprint);
    expect(hashes.count).toBe(before);
    const cursor = encodeCursor(
      { receivedAt: '2026-01-01T00:00:00.000Z', id: 'em_1' },
      first.fingerprint,
    );
    expect(parseListQuery({ ...query, cursor: [cursor] }).after?.id).toBe('em_1');
    const other = parseListQuery({ ...query, folder: ['inbox'] });
    expect(other.fingerprint).not.toBe(first.fingerprint);
    expect(() => parseListQuery({ ...query, folder: ['inbox'], cursor: [cursor] })).toThrow(
      /other mailbox or filters/,
    );
  });

  it('hashes nothing for a page read without a cursor until a cursor is made for it', () => {
    const before = hashes.count;
    const query = parseListQuery({ mailbox: ['lazy@example.test'], q: ['never listed before'] });
    expect(hashes.count).toBe(before);
    const fingerprint = query.fingerprint;
    expect(hashes.count).toBe(before + 1);
    expect(query.fingerprint).toBe(fingerprint);
    expect(hashes.count).toBe(before + 1);
  });
});
