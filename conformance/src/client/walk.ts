import { expect } from 'vitest';
import type { ApiClient } from './client.ts';

export interface Summary {
  id: string;
  mailbox: string;
  folder: string;
  read: boolean;
  starred: boolean;
  from: { address: string; name: string | null };
  subject: string;
  receivedAt: string;
}

/**
 * Follows `nextCursor` until it is null (§4.2), checking each page on the way: at most `limit`
 * items, no id seen twice. `between` runs after each page (e.g. to deliver new mail).
 */
export async function walkAll(
  api: ApiClient,
  apiKey: string,
  params: Record<string, string>,
  limit: number | undefined,
  between: (page: number) => Promise<void> = async () => {},
): Promise<Summary[]> {
  const seen = new Set<string>();
  const all: Summary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page += 1) {
    const query: Record<string, string> = { ...params };
    if (limit !== undefined) query.limit = String(limit);
    if (cursor !== null) query.cursor = cursor;
    const response = await api.request({ path: '/emails', query, apiKey });
    expect(response.status, `GET /emails page ${page + 1}`).toBe(200);
    const body = response.json<{ emails: Summary[]; nextCursor: string | null }>();
    expect(body.emails.length, 'page size').toBeLessThanOrEqual(limit ?? 25);
    for (const email of body.emails) {
      expect(seen.has(email.id), `email ${email.id} returned twice in one walk`).toBe(false);
      seen.add(email.id);
      all.push(email);
    }
    cursor = body.nextCursor;
    if (cursor === null) return all;
    expect(body.emails.length, 'a page with a nextCursor is not empty').toBeGreaterThan(0);
    await between(page);
  }
  throw new Error('nextCursor never became null after 10,000 pages');
}
