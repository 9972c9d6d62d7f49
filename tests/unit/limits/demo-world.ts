/**
 * The emulator in-process with the demo fixture loaded (fixtures/demo.json), plus what the limit
 * tests need that the fixture lacks: a mailbox and a domain exactly as long as an address and a
 * domain may be, granted to the demo owner, and enough uploads to fill a message. Nothing leaves
 * the process: webhook deliveries find no address.
 */
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { createApp, createServices, defaultDeps } from '../../../emulator/src/app.ts';
import { loadFixtureFile } from '../../../emulator/src/fixtures/load-fixture.ts';

const DEMO_PATH = fileURLToPath(new URL('../../../fixtures/demo.json', import.meta.url));
export const CONTROL_TOKEN = 'limits-test-token';
/** The demo's follow-owner key of Acme (fixtures/demo.json, `key_acme_demo`). */
export const API_KEY = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
export const SENDER = 'hello@acme.test';
export const EXTERNAL = 'pat@partner.test';

export interface World {
  app: Hono;
  /** An email in SENDER's inbox. */
  emailId: string;
  /** Uploads of Acme, more than a message may carry. */
  uploadIds: string[];
  /** A granted mailbox whose address has exactly 254 code points (D-11, D-53). */
  longMailbox: string;
  /** A domain of exactly 252 code points, the longest that holds an address (D-61). */
  longDomain: string;
}

export interface Exchange {
  status: number;
  text: string;
  json: Record<string, unknown> | undefined;
}

export interface Call {
  base: '/openapi/v1' | '/_mailtwin/v1';
  method: string;
  /** The path below `base`, values already in place (encoded by `pathOf`). */
  path: string;
  query?: Record<string, string>;
  /** A JSON value, or raw text sent as it is with `contentType`. */
  body?: unknown;
  raw?: string;
  contentType?: string;
}

/** Sends one request, with the control token or the demo key as the base needs. */
export async function send(world: World, call: Call): Promise<Exchange> {
  const url = new URL(`http://mailtwin.test${call.base}${call.path}`);
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.append(k, v);
  const headers: Record<string, string> = {
    Authorization: `Bearer ${call.base === '/openapi/v1' ? API_KEY : CONTROL_TOKEN}`,
  };
  let body: string | undefined;
  if (call.raw !== undefined) {
    body = call.raw;
    headers['Content-Type'] = call.contentType ?? 'text/plain';
  } else if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await world.app.request(url.pathname + url.search, {
    method: call.method.toUpperCase(),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** `/emails/{emailId}` with its parameters in place, each percent-encoded. */
export function pathOf(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
    return encodeURIComponent(value);
  });
}

/** An address of D-11 of exactly `length` code points (at least 20), told apart by `tag`. */
export function addressOfLength(length: number, tag: string): string {
  const local = `${tag}${'l'.repeat(64)}`.slice(0, 64);
  return `${local}@${domainOfLength(length - local.length - 1, tag)}`;
}

/** A domain name of exactly `length` code points: labels of at most 63, ending in `.test`. */
export function domainOfLength(length: number, tag: string): string {
  const end = `${tag}.test`;
  const labels: string[] = [];
  // What is left is made of pieces `label.`, each 2 to 64 characters.
  let rest = length - end.length;
  if (rest === 1 || rest < 0) throw new Error(`no domain of ${length} ends in ${end}`);
  while (rest > 0) {
    let size = Math.min(64, rest);
    if (rest - size === 1) size -= 1;
    labels.push('d'.repeat(size - 1));
    rest -= size;
  }
  return [...labels, end].join('.');
}

export async function demoWorld(): Promise<World> {
  const deps = defaultDeps({
    controlToken: CONTROL_TOKEN,
    resolver: async () => {
      throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
    },
    connector: async () => {
      throw new Error('no network in tests');
    },
    logError: (error) => {
      throw error;
    },
  });
  const services = createServices(deps);
  await loadFixtureFile(services, DEMO_PATH);
  const app = createApp(deps, services);
  const world: World = { app, emailId: '', uploadIds: [], longMailbox: '', longDomain: '' };

  const listed = await send(world, {
    base: '/openapi/v1',
    method: 'get',
    path: '/emails',
    query: { mailbox: SENDER, folder: 'inbox', limit: '1' },
  });
  world.emailId = String((listed.json?.emails as { id: string }[])[0]?.id);

  world.longMailbox = addressOfLength(254, 'box');
  world.longDomain = domainOfLength(252, 'dom');
  for (const call of [
    { path: '/mailboxes', body: { address: world.longMailbox } },
    { path: '/domains', body: { name: world.longDomain } },
  ]) {
    const created = await send(world, { base: '/_mailtwin/v1', method: 'post', ...call });
    if (created.status !== 201) throw new Error(`setup ${call.path}: ${created.text}`);
  }
  const granted = await send(world, {
    base: '/_mailtwin/v1',
    method: 'put',
    path: pathOf('/owners/{ownerId}/grants/{address}', {
      ownerId: 'own_acme',
      address: world.longMailbox,
    }),
  });
  if (granted.status !== 204) throw new Error(`setup grant: ${granted.text}`);

  for (let i = 0; i < 22; i += 1) {
    const form = new FormData();
    form.append('file', new File([`file ${i}`], `f${i}.txt`, { type: 'text/plain' }));
    const response = await app.request('/openapi/v1/attachments', {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}` },
      body: form,
    });
    world.uploadIds.push(((await response.json()) as { id: string }).id);
  }
  return world;
}
