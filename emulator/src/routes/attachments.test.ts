import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';

/** The made-up origin these tests call the app at, served as `--allowed-hosts mail.test` would. */
const HOSTS = { allowed: ['mail.test'] };

afterEach(() => vi.restoreAllMocks());

describe('an upload (§4.9, issue 27 item 1)', () => {
  it('hashes and stores the file in a later turn of the event loop than the one that parsed the form', async () => {
    const deps = defaultDeps({ logError: () => {}, hosts: HOSTS });
    const services = createServices(deps);
    const owner = services.directory.createOwner({ name: 'Acme' });
    const { secret } = services.directory.createKey({
      ownerId: owner.id,
      name: 'app',
      scope: 'follow-owner',
    });
    const app = createApp(deps, services);

    let turn = 0;
    let running = true;
    const tick = () => {
      turn += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    let parsedIn: number | undefined;
    const formData = Request.prototype.formData;
    vi.spyOn(Request.prototype, 'formData').mockImplementation(async function (this: Request) {
      const form = await formData.call(this);
      parsedIn = turn;
      return form;
    });
    let storedIn: number | undefined;
    const put = deps.store.blobs.put.bind(deps.store.blobs);
    vi.spyOn(deps.store.blobs, 'put').mockImplementation((bytes) => {
      storedIn = turn;
      return put(bytes);
    });

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(300_000).fill(7)]), 'big.bin');
    const response = await app.request('http://mail.test/openapi/v1/attachments', {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${secret}` },
    });
    running = false;
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: 'big.bin', size: 300_000 });
    expect(parsedIn).toBeDefined();
    expect(storedIn).toBeGreaterThan(parsedIn!);
  });
});
