// The wiring's types, in one home: what the app is built from (AppDeps) and the services built
// from it (Services). The composition root (app.ts) builds both; routes/control, the dashboard,
// the fixture loader and the program take them from here, so none of them imports app.ts and no
// cycle runs through it (.dependency-cruiser.cjs).
import type { Binding } from './binding/binding.ts';
import type { Dialect } from './binding/dialect.ts';
import type { Chaos, Sleep } from './chaos/chaos.ts';
import type { ControllableClock } from './clock.ts';
import type { EmulatorEvents } from './events.ts';
import type { RateLimit, SlidingWindowLimiter } from './domain/rate-limit.ts';
import type { HostPolicy } from './http/host-check.ts';
import type { AccessByRequest } from './http/request-access.ts';
import type { RequestValidator } from './http/request-validator.ts';
import type { ResponseCache } from './http/response-cache.ts';
import type { Ids } from './ids.ts';
import type { BodyRenderer } from './mime/render-pool.ts';
import type { DirectoryService } from './services/directory-service.ts';
import type { EmailService } from './services/email-service.ts';
import type { FaultInjector } from './services/faults.ts';
import type { InboundService } from './services/inbound-service.ts';
import type { LocalDelivery } from './services/local-delivery.ts';
import type { SendService } from './services/send-service.ts';
import type { UploadService } from './services/upload-service.ts';
import type { WebhookService } from './services/webhook-service.ts';
import type { WebhookSink } from './services/webhook-sink.ts';
import type { OpenApiDocument } from './spec.ts';
import type { Store } from './store/store.ts';
import type { Connector } from './webhook-delivery/connector.ts';
import type { WebhookDispatcher } from './webhook-delivery/dispatcher.ts';
import type { Resolver } from './webhook-delivery/endpoint-guard.ts';

/** What the app is built from; everything with state or side effects is injected here. */
export interface AppDeps {
  spec: OpenApiDocument;
  store: Store;
  clock: ControllableClock;
  ids: Ids;
  /** The bearer token of the control plane (/_mailtwin/v1). */
  controlToken: string;
  maxRequestBytes: number;
  /**
   * D-66: which `Host` names are served (`--host`, `--allowed-hosts`); loopback names and IP
   * literals always are. Defaults to none beyond those.
   */
  hosts: HostPolicy;
  /** How webhook deliveries reach the network; tests inject their own. */
  connector: Connector;
  /** How webhook host names resolve; tests inject their own, so nothing leaves loopback. */
  resolver: Resolver;
  /** `--allow-loopback-webhooks`: loopback targets allowed, nothing else. */
  allowLoopbackWebhooks: boolean;
  /** D-30: the deadline of one delivery attempt. */
  webhookTimeoutMs: number;
  /** D-38: `--rate-limit`, per API key; null for none. The control plane can change it. */
  rateLimit: RateLimit | null;
  /**
   * `--delivery-delay-ms`: how long mail sent to a mailbox here takes to reach it, on `clock`;
   * 0 (the default) delivers with the send. Inbound mail is never delayed.
   */
  deliveryDelayMs: number;
  /** This instance's origin once it listens (set by `mailtwin serve`), for the demo sink. */
  selfOrigin: { value?: string };
  /** Where unexpected errors are reported; never into a response body. */
  logError: (error: unknown) => void;
  /**
   * What happens inside this instance (events.ts): stored and changed mail, webhook attempts,
   * stopping. The dashboard's live updates, the request log and waits listen; one bus per app.
   */
  events: EmulatorEvents;
  /** How the emulator waits out a chaos rule's latency (chaos/); tests inject one that moves the clock. */
  sleep: Sleep;
  /**
   * `--binding`/`--contract`: the deployment's names and statuses the API speaks at its edge
   * (binding/); null (the default) or the default binding: spec/DECISIONS.md's own, nothing
   * mapped.
   */
  binding: Binding | null;
  /**
   * Renders message bodies, large ones on worker threads (mime/render-pool.ts); closed by
   * `closeServices` when the emulator stops. Defaults to the process's shared pool.
   */
  renderer: BodyRenderer;
  /**
   * Whether repeated GETs are answered from the response cache (http/response-cache.ts); true
   * by default, false with `mailtwin serve --no-response-cache`, so its effect can be measured.
   */
  responseCache: boolean;
}

/** The services routes and fixtures share: every rule of the emulator lives below these. */
export interface Services {
  deps: AppDeps;
  directory: DirectoryService;
  /** Mail as the dashboard reads and changes it, never through the store. */
  emails: EmailService;
  inbound: InboundService;
  requests: RequestValidator;
  uploads: UploadService;
  send: SendService;
  /** When mail sent to a mailbox here arrives (`--delivery-delay-ms`). */
  localDelivery: LocalDelivery;
  faults: FaultInjector;
  /** Seeded chaos rules over API operations, SMTP stages and webhook deliveries (docs/chaos.md). */
  chaos: Chaos;
  /** Signs `{{unsubscribe_url}}` links of this instance. */
  unsubscribeKey: string;
  dispatcher: WebhookDispatcher;
  webhooks: WebhookService;
  sink: WebhookSink;
  /** D-38: requests per API key, counted on the injected clock. */
  rateLimiter: SlidingWindowLimiter;
  /** Who each API request was, as the API decided it, for the request log. */
  accessByRequest: AccessByRequest;
  /** The binding spoken at the edge; null for spec/DECISIONS.md's own, where nothing is mapped. */
  dialect: Dialect | null;
  /** Repeated GETs' answers, mounted on the API unless `deps.responseCache` is false. */
  responseCache: ResponseCache;
}
