import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { createApp, defaultDeps } from '../emulator/src/app.ts';
import { SPEC_PATH } from '../emulator/src/spec.ts';
import { SpecValidator } from '../conformance/src/contract/spec-validator.ts';
import { listen, ms, percentile, sampleLatency, throughput } from './measure.ts';

/** Sizes of the contract, cost of serving it, and cost of validating a response against it. */
export async function benchContract(print: (line: string) => void): Promise<void> {
  const yamlBytes = readFileSync(SPEC_PATH).length;
  const app = createApp(defaultDeps({ logError: () => {} }));
  const served = await (await app.request('http://127.0.0.1/openapi/openapi.json')).text();
  print(
    `spec/openapi.yaml: ${yamlBytes} bytes; served openapi.json: ${served.length} bytes (${gzipSync(served).length} gzipped)`,
  );

  const inProcess = await sampleLatency(2000, () =>
    Promise.resolve(app.request('http://127.0.0.1/openapi/openapi.json')).then((r) =>
      r.arrayBuffer(),
    ),
  );
  print(
    `GET /openapi/openapi.json in process: p50 ${ms(percentile(inProcess, 50))}, p99 ${ms(percentile(inProcess, 99))} (n=2000)`,
  );

  const validator = new SpecValidator();
  const body = new TextEncoder().encode(JSON.stringify({ emails: [], nextCursor: null }));
  const validation = await sampleLatency(5000, async () =>
    validator.validate({
      method: 'GET',
      path: '/emails',
      status: 200,
      contentType: 'application/json',
      body,
    }),
  );
  print(
    `conformance response validation (GET /emails 200): p50 ${ms(percentile(validation, 50))}, p99 ${ms(percentile(validation, 99))} (n=5000)`,
  );

  const bare = new Hono().get('/ping', (c) => c.json({ ok: true }));
  const emulator = await listen(app);
  const baseline = await listen(bare);
  try {
    const docs = await throughput(`${emulator.origin}/openapi/openapi.json`, {
      seconds: 3,
      connections: 20,
    });
    const ping = await throughput(`${baseline.origin}/ping`, { seconds: 3, connections: 20 });
    print(
      `HTTP GET /openapi/openapi.json: ${docs.rps.toFixed(0)} req/s (p99 ${docs.p99Ms} ms, non-2xx ${docs.non2xx}); bare Hono JSON route: ${ping.rps.toFixed(0)} req/s; ratio ${(docs.rps / ping.rps).toFixed(2)}`,
    );
  } finally {
    await emulator.close();
    await baseline.close();
  }
}
