import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import { emailDetail } from '../domain/email-view.ts';
import type { Email } from '../domain/types.ts';
import type { Connector } from './connector.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }];
/** Strings this long are a large email's detail, or a delivery body carrying it. */
const LARGE = 1_000_000;

afterEach(() => vi.restoreAllMocks());

function world(connector: Connector) {
  const deps = defaultDeps({
    connector,
    resolver: publicResolver,
    clock: new ControllableClock(() => T0),
    logError: () => {},
  });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.directory.grant(owner.id, 'alice@acme.test');
  for (const path of ['one', 'two'])
    services.webhooks.create({
      ownerId: owner.id,
      url: `https://hooks.example.com/${path}`,
      scope: 'follow-owner',
    });
  const email: Email = {
    id: '01JD8ZZZZZZZZZZZZZZZZZ0001',
    mailbox: 'alice@acme.test',
    folder: 'inbox',
    read: false,
    starred: false,
    from: { address: 'bob@partner.test', name: 'Bob Ünal' },
    to: [{ address: 'alice@acme.test', name: null }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: 'Large',
    snippet: 'word word',
    text: 'wörd '.repeat(400_000),
    html: null,
    preheader: null,
    messageId: '<large@partner.test>',
    inReplyTo: null,
    references: [],
    receivedAt: new Date(T0).toISOString(),
    sentAt: null,
    attachmentCount: 0,
    attachments: [],
  };
  deps.store.emails.insert(email);
  return { deps, services, email };
}

/** Counts JSON.parse and JSON.stringify calls on strings of LARGE characters or more. */
function countLargeJson() {
  const counts = { parse: 0, stringify: 0 };
  const { parse, stringify } = JSON;
  vi.spyOn(JSON, 'parse').mockImplementation((...args: Parameters<typeof parse>) => {
    if (args[0].length >= LARGE) counts.parse += 1;
    return parse(...args) as unknown;
  });
  vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof stringify>) => {
    const out = stringify(...args);
    if (out !== undefined && out.length >= LARGE) counts.stringify += 1;
    return out;
  });
  return counts;
}

describe('the payload of a large email (issue 27 item 1)', () => {
  it('encodes the detail once for every webhook, and sends its stored bytes without parsing or encoding them again', async () => {
    const bodies: Buffer[] = [];
    const { services, email } = world(async (request) => {
      bodies.push(request.body);
      return { status: 204 };
    });
    const counts = countLargeJson();
    services.dispatcher.enqueue(email); // two webhooks hear of it
    expect(counts).toEqual({ parse: 0, stringify: 1 });
    await services.dispatcher.runDue();
    expect(counts).toEqual({ parse: 0, stringify: 1 });
    vi.restoreAllMocks();

    // The bytes sent are still those of the whole event, the detail as stored (§6.2, D-37).
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      const sent = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      expect(Object.keys(sent)).toEqual(['event', 'webhookId', 'timestamp', 'data']);
      expect(body.toString('utf8')).toBe(
        JSON.stringify({
          event: 'email.received',
          webhookId: sent.webhookId,
          timestamp: new Date(T0).toISOString(),
          data: emailDetail(email),
        }),
      );
    }
  });

  it('copies the stored data once an attempt, into the body it sends', async () => {
    const bodies: Buffer[] = [];
    const { services, email } = world(async (request) => {
      bodies.push(request.body);
      return { status: 204 };
    });
    services.dispatcher.enqueue(email); // two webhooks hear of it; its data is stored in parts
    // Each copy of megabytes is memory the process faults in (about 25 ms of CPU for 4.5 MB on
    // a loaded machine): the parts joined into the data and the data into the body were two.
    const { concat } = Buffer;
    let copies = 0;
    vi.spyOn(Buffer, 'concat').mockImplementation((list, length) => {
      const joined = concat(list, length);
      if (joined.length >= LARGE) copies += 1;
      return joined;
    });
    await services.dispatcher.runDue();
    expect(bodies).toHaveLength(2);
    expect(copies).toBe(2);
  });

  it('lists deliveries without reading their payloads', () => {
    const { deps, services, email } = world(async () => ({ status: 204 }));
    services.dispatcher.enqueue(email);
    const counts = countLargeJson();
    const [webhook] = services.webhooks.list();
    expect(services.webhooks.deliveries(webhook!.id)).toHaveLength(1);
    expect(deps.store.webhooks.due(new Date(T0).toISOString(), 32)).toHaveLength(2);
    expect(counts).toEqual({ parse: 0, stringify: 0 });
  });
});
