import { connectMailtwin } from 'mailtwin/testing';
import { worker } from '../scenario.js';

test('worker 7 gets its own mail and sees no other tenant', async () => {
  const result = await worker(connectMailtwin(), 7);
  expect(result.mail).toBe(`Welcome ${result.tenant}`);
  expect(result.sightings).toBe(0);
});
