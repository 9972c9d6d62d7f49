import { describe, expect, it } from 'vitest';
import { unsubscribeToken } from '../domain/unsubscribe.ts';
import type { DirectoryService } from '../services/directory-service.ts';
import { unsubscribeRoutes } from './unsubscribe.ts';

describe('the unsubscribe page (D-24)', () => {
  it('suppresses the address and names it, escaped for HTML', async () => {
    const address = `o'neil&co"<b>@ext.test`;
    const suppressed: string[] = [];
    const directory = {
      suppress: (a: string) => suppressed.push(a),
    } as unknown as DirectoryService;
    const page = await unsubscribeRoutes(directory, 'key-1').request(
      `/${unsubscribeToken('key-1', address)}`,
    );
    expect(page.status).toBe(200);
    expect(suppressed).toEqual([address]);
    expect(await page.text()).toContain(
      '<p>o&#39;neil&amp;co&quot;&lt;b&gt;@ext.test will receive no more mail from this deployment.</p>',
    );
  });
});
