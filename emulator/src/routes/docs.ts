import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { specForInstance, type OpenApiDocument } from '../spec.ts';

/** Swagger UI files served from the npm package, so the docs page needs no CDN (§1). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const assetCache = new Map<string, string>();

/**
 * Where swagger-ui-dist's files are. Resolved, not imported: the package's main module loads
 * its whole 1.5 MB bundle into the process, a third of the emulator's start-up.
 */
function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The Host header is the client's to choose; bound the per-origin cache. */
const MAX_CACHED_ORIGINS = 16;

function readAsset(name: string): string {
  let body = assetCache.get(name);
  if (body === undefined) {
    body = readFileSync(join(swaggerUiDir(), name), 'utf8');
    assetCache.set(name, body);
  }
  return body;
}

/** The page: Swagger UI pointed at this instance's openapi.json, with the online validator off. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Email Service API reference (mailtwin)</title>
    <link rel="stylesheet" href="/openapi/docs/assets/swagger-ui.css" />
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/openapi/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/openapi/docs/assets/swagger-ui-standalone-preset.js"></script>
    <script src="/openapi/docs/init.js"></script>
  </body>
</html>
`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout',
});
`;

/**
 * §1: `{origin}/openapi/openapi.json` (the spec, its server URL this instance's) and
 * `{origin}/openapi/docs` (an interactive reference that works offline).
 */
export function docsRoutes(spec: OpenApiDocument): Hono {
  const app = new Hono();

  // Serialized once per origin (a few at most: the Host header varies only by how it is reached),
  // and kept as bytes: encoding its 70 KB anew was most of each request's cost.
  const servedByOrigin = new Map<string, Buffer<ArrayBuffer>>();
  app.get('/openapi.json', (c) => {
    const origin = new URL(c.req.url).origin;
    let body = servedByOrigin.get(origin);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify(specForInstance(spec, `${origin}/openapi/v1`)));
      if (servedByOrigin.size >= MAX_CACHED_ORIGINS) servedByOrigin.clear();
      servedByOrigin.set(origin, body);
    }
    return c.body(body, 200, { 'content-type': 'application/json' });
  });

  app.get('/docs', (c) => c.html(DOCS_PAGE));
  app.get('/docs/', (c) => c.redirect('/openapi/docs'));
  app.get('/docs/init.js', (c) =>
    c.body(INIT_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/docs/assets/:name', (c) => {
    const name = c.req.param('name');
    const type = ASSETS[name];
    if (type === undefined) return c.notFound();
    return c.body(readAsset(name), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=86400',
    });
  });

  return app;
}
