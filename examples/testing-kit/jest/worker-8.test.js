import { connectMailtwin } from 'mailtwin/testing';
import { worker } from '../scenario.js';

test('worker 8 gets its own mail and sees no other tenant', async () => {
  const result = await worker(connectMailtwin(), 8);
  expect(result.mail).toBe(`Welcome ${result.tenant}`);
  expect(result.sightings).toBe(0);
});
