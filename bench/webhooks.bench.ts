import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from 'mailtwin/webhooks';
import { createServices, defaultDeps } from '../emulator/src/app.ts';

/**
 * §6 figure: 1,000 email.received deliveries to a receiver on loopback, each signed and
 * verified by the receiver; time from the first email to the last verified delivery.
 */
export async function benchWebhooks(print: (line: string) => void): Promise<void> {
  const deps = defaultDeps({ allowLoopbackWebhooks: true, logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Bench' });
  const mailbox = services.directory.createMailbox({ address: 'hooks@acme.test' }).address;
  services.directory.grant(owner.id, mailbox);

  const count = 1000;
  const seen = new Set<string>();
  let invalid = 0;
  let secret = '';
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      try {
        const verified = verifyWebhook({
          secret,
          headers: request.headers as Record<string, string>,
          rawBody: Buffer.concat(chunks),
          now: deps.clock.now(),
        });
        seen.add(String(verified.payload.data.id));
      } catch {
        invalid += 1;
      }
      response.writeHead(200).end();
      if (seen.size + invalid >= count) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  secret = services.webhooks.create({
    ownerId: owner.id,
    url: `http://127.0.0.1:${port}/hook`,
    scope: 'follow-owner',
  }).secret;

  const started = performance.now();
  for (let i = 0; i < count; i += 1) {
    services.inbound.injectJson({ mailbox, from: 'bob@partner.test', subject: `n${i}`, text: 'x' });
  }
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  const seconds = (performance.now() - started) / 1000;
  receiver.close();
  print(
    `${count} signed deliveries to a loopback receiver: ${seen.size} verified, ${invalid} invalid, ${count - seen.size - invalid} lost, in ${seconds.toFixed(2)} s (target ≤ 2 s)`,
  );
}
