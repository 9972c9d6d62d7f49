import { Hono, type Context } from 'hono';
import { ApiError, toApiError } from './errors.ts';
import { docsRoutes } from './routes/docs.ts';
import { loadSpec, type OpenApiDocument } from './spec.ts';

/** What the app is built from; everything with state or side effects is injected here. */
export interface AppDeps {
  spec: OpenApiDocument;
  /** Where unexpected errors are reported; never into a response body. */
  logError: (error: unknown) => void;
}

export function defaultDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    spec: overrides.spec ?? loadSpec(),
    logError:
      overrides.logError ?? ((error) => console.error('[mailtwin] unexpected error', error)),
  };
}

/**
 * Builds the whole emulator as a Hono app without opening a socket: tests call
 * `app.request()`, `main.ts` wraps it in `@hono/node-server`.
 */
export function createApp(deps: AppDeps = defaultDeps()): Hono {
  const app = new Hono();

  app.route('/openapi', docsRoutes(deps.spec));

  const api = new Hono();
  app.route('/openapi/v1', api);

  app.notFound((c) =>
    renderError(c, new ApiError('not_found', 'No such path. Every API path is under /openapi/v1.')),
  );

  // One renderer for every failure (§7): the spec's Error schema, a fitting status, no stack.
  app.onError((error, c) => {
    const { apiError, unexpected } = toApiError(error);
    if (unexpected) deps.logError(error);
    return renderError(c, apiError);
  });

  return app;
}

function renderError(c: Context, error: ApiError): Response {
  const headers: Record<string, string> =
    error.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="openapi"' } : {};
  return c.json(error.toBody(), error.status, headers);
}
