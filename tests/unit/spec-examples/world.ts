// One emulator, in process, with the demo data `mailtwin serve` starts with (fixtures/demo.json;
// not the welcome email it also delivers at start-up), the demo webhook delivering into a list
// instead of the network, and the clock frozen at the instant the spec's examples show. Every
// test gets its own, so no test sees another's changes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { createApp, createServices, defaultDeps } from '../../../emulator/src/app.ts';
import type { AppDeps, Services } from '../../../emulator/src/deps.ts';
import { ControllableClock } from '../../../emulator/src/clock.ts';
import { loadFixtureFile } from '../../../emulator/src/fixtures/load-fixture.ts';
import type { OpenApiDocument } from '../../../emulator/src/spec.ts';
import { Bindings } from './compare.ts';

export const DEMO_PATH = fileURLToPath(new URL('../../../fixtures/demo.json', import.meta.url));

interface Demo {
  keys: { name: string; secret: string }[];
  webhooks: { id: string; secret: string }[];
}
const demo = JSON.parse(readFileSync(DEMO_PATH, 'utf8')) as Demo;
const secretOf = (name: string) => {
  const key = demo.keys.find((k) => k.name === name);
  if (key === undefined) throw new Error(`fixtures/demo.json has no key named ${name}`);
  return key.secret;
};

/** The demo's first key (MAILTWIN_API_KEY): Acme Corp, follow-owner. Every example uses it. */
export const DEMO_KEY = secretOf('Demo app');
/** A key of the other demo owner, Northwind Traders. */
export const OTHER_OWNER_KEY = secretOf('Northwind CRM');
/** The demo webhook (follow-owner of Acme Corp) and its signing secret. */
export const DEMO_WEBHOOK = demo.webhooks[0] as { id: string; secret: string };
/** The instant every example shows (`receivedAt` of new mail, webhook timestamps). */
export const EXAMPLE_TIME = '2026-11-20T10:02:11.482Z';
export const ORIGIN = 'http://127.0.0.1:4025';
const CONTROL_TOKEN = 'spec-examples-control-token';

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface CallOptions {
  body?: RequestInit['body'];
  /** Defaults to application/json when `json` is given. */
  headers?: Record<string, string>;
  json?: unknown;
  /** Bearer key; DEMO_KEY unless given, none when null. */
  key?: string | null;
}

export interface World {
  app: Hono;
  deps: AppDeps;
  services: Services;
  bindings: Bindings;
  /** Webhook deliveries the emulator sent, in order. */
  deliveries: Delivery[];
  /** The real id of the email the examples act on (the getEmail example's), once bound. */
  exampleEmailId?: string;
  /** Unexpected errors the emulator logged (a sabotaged store logs one). */
  logged: unknown[];
  /** A request to the API under /openapi/v1. */
  api(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** A request to the control plane under /_mailtwin/v1. */
  control(method: string, path: string, json?: unknown): Promise<Response>;
}

export async function createWorld(spec: OpenApiDocument): Promise<World> {
  const deliveries: Delivery[] = [];
  const logged: unknown[] = [];
  const deps = defaultDeps({
    spec,
    clock: new ControllableClock(() => Date.parse(EXAMPLE_TIME)),
    controlToken: CONTROL_TOKEN,
    allowLoopbackWebhooks: true,
    selfOrigin: { value: ORIGIN },
    resolver: () => Promise.reject(new Error('no name resolution in this test')),
    connector: (delivery) => {
      deliveries.push({
        url: String(delivery.url),
        headers: delivery.headers,
        body: delivery.body.toString('utf8'),
      });
      return Promise.resolve({ status: 204 });
    },
    logError: (error) => logged.push(error),
  });
  const services = createServices(deps);
  await loadFixtureFile(services, DEMO_PATH);
  const app = createApp(deps, services);
  const call = async (url: string, method: string, options: CallOptions, bearer: string | null) => {
    const headers: Record<string, string> = { ...options.headers };
    if (bearer !== null) headers.Authorization = `Bearer ${bearer}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['Content-Type'] ??= 'application/json';
    }
    return await app.request(`${ORIGIN}${url}`, { method, headers, body });
  };
  return {
    app,
    deps,
    services,
    bindings: new Bindings(),
    deliveries,
    logged,
    api: (method, path, options = {}) =>
      call(
        `/openapi/v1${path}`,
        method,
        options,
        options.key === undefined ? DEMO_KEY : options.key,
      ),
    control: (method, path, json) =>
      call(`/_mailtwin/v1${path}`, method, json === undefined ? {} : { json }, CONTROL_TOKEN),
  };
}
