import escapeHtml from 'escape-html';
import { Hono } from 'hono';
import { ApiError } from '../errors.ts';
import { addressOfUnsubscribeToken } from '../domain/unsubscribe.ts';
import type { DirectoryService } from '../services/directory-service.ts';

/** D-24: where `{{unsubscribe_url}}` leads; opening it suppresses the recipient (§4.3 rule 4). */
export function unsubscribeRoutes(directory: DirectoryService, key: string): Hono {
  return new Hono().get('/:token', (c) => {
    const address = addressOfUnsubscribeToken(key, c.req.param('token'));
    if (address === undefined)
      throw new ApiError('not_found', 'This unsubscribe link is not valid.');
    directory.suppress(address, 'unsubscribed through {{unsubscribe_url}}');
    return c.html(
      `<!doctype html><meta charset="utf-8"><title>Unsubscribed</title><p>${escapeHtml(address)} will receive no more mail from this deployment.</p>`,
    );
  });
}
