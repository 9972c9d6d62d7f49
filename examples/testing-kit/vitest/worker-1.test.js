import { expect, inject, it } from 'vitest';
import { connectMailtwin } from 'mailtwin/testing';
import { worker } from '../scenario.js';

it('worker 1 gets its own mail and sees no other tenant', async () => {
  const result = await worker(connectMailtwin(inject('mailtwin')), 1);
  expect(result.mail).toBe(`Welcome ${result.tenant}`);
  expect(result.sightings).toBe(0);
});
