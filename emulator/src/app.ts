import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { ControllableClock } from './clock.ts';
import type { AppDeps, Services } from './deps.ts';
import { ApiError, quoteForMessage, toApiError } from './errors.ts';
import { EmulatorEvents } from './events.ts';
import { requireApiKey, type ApiEnv } from './http/auth.ts';
import { hostCheck } from './http/host-check.ts';
import { inSequence } from './http/in-sequence.ts';
import { MemoRouter } from './http/memo-router.ts';
import { AccessByRequest } from './http/request-access.ts';
import { DEFAULT_MAX_REQUEST_BYTES, requestBodyLimit } from './http/request-body-limit.ts';
import { ResponseCache } from './http/response-cache.ts';
import { allowedMethods, pathMethodsOf, routeMethods } from './http/allowed-methods.ts';
import { parameterLimits } from './http/parameter-limits.ts';
import { rateLimit } from './http/rate-limit.ts';
import { SlidingWindowLimiter } from './domain/rate-limit.ts';
import { RequestValidator } from './http/request-validator.ts';
import { SendRequests } from './http/send-request.ts';
import { cryptoIds } from './ids.ts';
import { controlRoutes } from './routes/control.ts';
import { dashboardMount } from './dashboard/mount.ts';
import { controlSpec } from './routes/control/body.ts';
import { docsRoutes } from './routes/docs.ts';
import { emailRoutes } from './routes/emails.ts';
import { mailboxRoutes } from './routes/mailboxes.ts';
import { attachmentRoutes, publicContentRoutes } from './routes/attachments.ts';
import { sendingRoutes } from './routes/sending.ts';
import { unsubscribeRoutes } from './routes/unsubscribe.ts';
import { healthRoutes } from './routes/health.ts';
import { DirectoryService } from './services/directory-service.ts';
import { EmailService } from './services/email-service.ts';
import { FaultInjector } from './services/faults.ts';
import { Chaos, realSleep } from './chaos/chaos.ts';
import { chaosMiddleware } from './chaos/http.ts';
import { operationsOf } from './chaos/operations.ts';
import { InboundService } from './services/inbound-service.ts';
import { LocalDelivery } from './services/local-delivery.ts';
import { SendService } from './services/send-service.ts';
import { sharedRenderPool } from './mime/render-pool.ts';
import { UploadService } from './services/upload-service.ts';
import { WebhookService } from './services/webhook-service.ts';
import { WebhookSink } from './services/webhook-sink.ts';
import { sinkRoutes } from './routes/sink.ts';
import { httpConnector } from './webhook-delivery/connector.ts';
import { WebhookDispatcher } from './webhook-delivery/dispatcher.ts';
import { systemResolver } from './webhook-delivery/endpoint-guard.ts';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from './domain/webhook-policy.ts';
import { loadSpec } from './spec.ts';
import { openStore } from './store/store.ts';
import type { Email } from './domain/types.ts';
import { createDialect } from './binding/dialect.ts';
import { isDefaultBinding } from './binding/load.ts';
import { servedSpec } from './binding/served-spec.ts';

export function defaultDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    spec: overrides.spec ?? loadSpec(),
    store: overrides.store ?? openStore(':memory:'),
    clock: overrides.clock ?? new ControllableClock(),
    ids: overrides.ids ?? cryptoIds,
    controlToken: overrides.controlToken ?? `mt_${randomBytes(24).toString('base64url')}`,
    maxRequestBytes: overrides.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    hosts: overrides.hosts ?? { allowed: [] },
    connector: overrides.connector ?? httpConnector,
    resolver: overrides.resolver ?? systemResolver,
    allowLoopbackWebhooks: overrides.allowLoopbackWebhooks ?? false,
    webhookTimeoutMs: overrides.webhookTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    rateLimit: overrides.rateLimit ?? null,
    deliveryDelayMs: overrides.deliveryDelayMs ?? 0,
    selfOrigin: overrides.selfOrigin ?? {},
    logError:
      overrides.logError ?? ((error) => console.error('[mailtwin] unexpected error', error)),
    events: overrides.events ?? new EmulatorEvents(),
    sleep: overrides.sleep ?? realSleep,
    binding: overrides.binding ?? null,
    renderer: overrides.renderer ?? sharedRenderPool,
    responseCache: overrides.responseCache ?? true,
  };
}

export function createServices(deps: AppDeps): Services {
  const dialect =
    deps.binding === null || isDefaultBinding(deps.binding) ? null : createDialect(deps.binding);
  const requests = new RequestValidator(deps.spec);
  const uploads = new UploadService(deps.store, deps.clock, deps.ids);
  const faults = new FaultInjector();
  const chaos = new Chaos({
    operations: operationsOf(deps.spec),
    newId: () => deps.ids.prefixed('chr'),
    sleep: deps.sleep,
  });
  // Kept with the data, so `{{unsubscribe_url}}` links in mail sent before a restart on the
  // same --db file still work after it.
  const unsubscribeKey = deps.store.settings.getOrCreate('unsubscribe-key', () =>
    deps.ids.secret(32),
  );
  const dispatcher = new WebhookDispatcher(
    deps.store,
    deps.clock,
    deps.ids,
    deps.connector,
    deps.resolver,
    {
      allowLoopback: deps.allowLoopbackWebhooks,
      timeoutMs: deps.webhookTimeoutMs,
      selfOrigin: () => deps.selfOrigin.value,
      logError: deps.logError,
      chaos,
      events: deps.events,
      ...(dialect === null ? {} : { renderData: dialect.webhookData }),
    },
  );
  // §6.1: every new email reaching a mailbox, inbound or local delivery, is offered to webhooks.
  const delivered = (email: Email, detail?: Parameters<WebhookDispatcher['enqueue']>[1]) =>
    dispatcher.enqueue(email, detail);
  const localDelivery = new LocalDelivery(deps.clock, deps.deliveryDelayMs, deps.logError);
  return {
    deps,
    directory: new DirectoryService(deps.store, deps.clock, deps.ids),
    emails: new EmailService(deps.store, deps.events),
    inbound: new InboundService(
      deps.store,
      deps.clock,
      deps.ids,
      deps.events,
      delivered,
      deps.renderer,
    ),
    requests,
    uploads,
    faults,
    chaos,
    unsubscribeKey,
    send: new SendService(
      deps.store,
      deps.clock,
      deps.ids,
      faults,
      uploads,
      unsubscribeKey,
      deps.events,
      delivered,
      localDelivery,
      deps.renderer,
    ),
    localDelivery,
    dispatcher,
    webhooks: new WebhookService(
      deps.store,
      deps.clock,
      deps.ids,
      dispatcher,
      deps.allowLoopbackWebhooks,
    ),
    sink: new WebhookSink(deps.store, deps.clock),
    rateLimiter: new SlidingWindowLimiter(deps.rateLimit),
    accessByRequest: new AccessByRequest(),
    dialect,
    responseCache: new ResponseCache(),
  };
}

/**
 * The last step of stopping, once no request is in progress: ends the render threads (a render
 * asked for after this would start them again) and closes the store.
 */
export async function closeServices(services: Services): Promise<void> {
  await services.deps.renderer.close();
  services.deps.store.close();
}

/**
 * Builds the whole emulator as a Hono app without opening a socket: tests call
 * `app.request()`, `main.ts` wraps it in `@hono/node-server`.
 */
export function createApp(
  deps: AppDeps = defaultDeps(),
  services: Services = createServices(deps),
): Hono {
  const app = new Hono({ router: new MemoRouter() });
  const limitBody = requestBodyLimit({
    maxSize: deps.maxRequestBytes,
    onError: () => {
      throw new ApiError(
        'request_too_large',
        `The request body exceeds the platform limit of ${deps.maxRequestBytes} bytes.`,
      );
    },
  });

  // First, on every path (API, control plane, dashboard, docs, spec, /content, unknown ones):
  // a page that rebinds its DNS name to this machine gets nothing (D-66).
  app.use('*', hostCheck(deps.hosts));
  const { dialect } = services;
  // The one place a binding is spoken (binding/): the served document and docs describe it,
  // and every request and answer of /openapi/v1 passes its mapping.
  app.route(
    '/openapi',
    docsRoutes(dialect === null ? deps.spec : servedSpec(deps.spec, dialect.binding)),
  );
  if (dialect !== null) app.use('/openapi/v1/*', dialect.middleware);

  const api = new Hono<ApiEnv>();
  // The API's edge, in this order, run as one layer (in-sequence.ts).
  api.use(
    '*',
    inSequence<ApiEnv>(
      services.accessByRequest.recorder(),
      // First of all, as a gateway in front of the service would (docs/chaos.md).
      chaosMiddleware(services.chaos, '/openapi/v1'),
      limitBody,
      requireApiKey(deps.store),
      rateLimit(services.rateLimiter, deps.clock),
      // Before the parameter checks: a repeated GET's answer is ready only if it passed them.
      ...(deps.responseCache ? [services.responseCache.middleware(deps.store.version)] : []),
      parameterLimits(deps.spec, '/openapi/v1'),
    ),
  );
  api.route('/mailboxes', mailboxRoutes());
  api.route(
    '/emails',
    sendingRoutes(deps.store, services.send, new SendRequests(services.requests, deps.renderer)),
  );
  api.route('/emails', emailRoutes(deps.store, services.requests, deps.events));
  api.route('/attachments', attachmentRoutes(services.uploads));
  app.route('/openapi/v1', api);
  app.use('/_mailtwin/v1/*', limitBody);
  app.route('/_mailtwin/v1', controlRoutes(services));
  app.use('/_mailtwin/sink', limitBody);
  app.route('/_mailtwin/sink', sinkRoutes(services.sink));
  app.route('/content', publicContentRoutes(services.uploads));
  app.route('/unsubscribe', unsubscribeRoutes(services.directory, services.unsubscribeKey));
  app.route('/', healthRoutes()); // `/readyz`
  app.route('/', dashboardMount(services)); // `/` and `/dashboard/*` only

  const knownPaths = [
    ...pathMethodsOf('/openapi/v1', deps.spec),
    ...pathMethodsOf('/_mailtwin/v1', controlSpec()),
    ...routeMethods(OTHER_ROUTES),
  ];
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    const allow = allowedMethods(knownPaths, pathname);
    // A route that has the method but not the thing (an unknown docs asset) is a plain 404.
    if (allow.length > 0 && !allow.includes(c.req.method)) {
      return renderError(
        c,
        new ApiError(
          'method_not_allowed',
          `${c.req.method} is not allowed on ${quoteForMessage(pathname)}; allowed: ${allow.join(', ')}.`,
        ),
        { Allow: allow.join(', ') },
      );
    }
    return renderError(
      c,
      new ApiError(
        'not_found',
        `No such path: ${c.req.method} ${quoteForMessage(pathname)}. API paths are under /openapi/v1, the control plane under /_mailtwin/v1.`,
      ),
    );
  });

  // One renderer for every failure (§7): the spec's Error schema, a fitting status, no stack.
  app.onError((error, c) => {
    const { apiError, unexpected } = toApiError(error);
    // A client that went away mid-request (its body cut short) is no fault of ours to report.
    if (unexpected && !c.req.raw.signal.aborted) deps.logError(error);
    return renderError(c, apiError);
  });

  return app;
}

/** Paths served outside the two contracts, with their methods, for 405 answers. */
const OTHER_ROUTES = {
  '/openapi/openapi.json': ['GET'],
  '/openapi/docs': ['GET'],
  '/openapi/docs/init.js': ['GET'],
  '/openapi/docs/assets/{name}': ['GET'],
  '/_mailtwin/sink': ['POST'],
  '/content/attachments/{token}/{name}': ['GET'],
  '/unsubscribe/{token}': ['GET'],
  '/readyz': ['GET'],
} as const;

function renderError(
  c: Context,
  error: ApiError,
  extraHeaders: Record<string, string> = {},
): Response {
  const headers: Record<string, string> =
    error.status === 401
      ? { ...extraHeaders, 'WWW-Authenticate': 'Bearer realm="openapi"' }
      : extraHeaders;
  return c.json(error.toBody(), error.status, headers);
}
