import { Hono } from 'hono';
import type { Services } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { controlRoutes } from '../routes/control.ts';

const BASE = '/_mailtwin/v1';

/** What the control plane answered: its JSON body, or its Error's message. */
export type ControlAnswer<T> =
  { ok: true; status: number; body: T } | { ok: false; message: string };

/**
 * The dashboard's actions go through the control plane itself, in process: the same schema
 * checks, the same rules (clock only forward, fault options, key scopes) and the same error
 * messages, so the dashboard cannot drift from `/_mailtwin/v1` or bypass it. (The suite's
 * ControlClient, conformance/src/client, is another thing: a client of a target over HTTP.)
 */
export class DashboardControl {
  private readonly app: Hono;

  constructor(private readonly services: Services) {
    this.app = new Hono();
    this.app.route(BASE, controlRoutes(services));
    // The app's own renderer (app.ts) is not in this path: render errors the same way here.
    this.app.onError((error, c) => {
      const { apiError, unexpected } = toApiError(error);
      if (unexpected) services.deps.logError(error);
      return c.json(apiError.toBody(), apiError.status);
    });
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<ControlAnswer<T>> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.services.deps.controlToken}`,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.app.request(`${BASE}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text === '' ? null : (JSON.parse(text) as unknown);
    if (response.ok) return { ok: true, status: response.status, body: parsed as T };
    const error = parsed as { message?: string; field?: string } | null;
    const field = error?.field === undefined ? '' : ` (${error.field})`;
    return { ok: false, message: `${error?.message ?? `HTTP ${response.status}`}${field}` };
  }
}
