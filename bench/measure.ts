import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import autocannon from 'autocannon';
import type { Hono } from 'hono';

/** Percentile of a sorted sample, nearest-rank. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Runs `operation` `iterations` times (after a warm-up) and returns latencies in ms, sorted. */
export async function sampleLatency(
  iterations: number,
  operation: () => Promise<unknown>,
): Promise<number[]> {
  for (let i = 0; i < Math.min(200, iterations); i += 1) await operation();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await operation();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b);
}

/** Serves a Hono app on a free loopback port; call `close` when done. */
export async function listen(app: Hono): Promise<{ origin: string; close: () => Promise<void> }> {
  let server: ServerType | undefined;
  const address = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
  });
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server?.close(() => resolve())),
  };
}

/** Requests per second autocannon sustains against one URL (the load tool shares the cores). */
export async function throughput(
  url: string,
  options: { seconds: number; connections: number; headers?: Record<string, string> },
): Promise<{ rps: number; p99Ms: number; non2xx: number }> {
  const result = await autocannon({
    url,
    duration: options.seconds,
    connections: options.connections,
    headers: options.headers ?? {},
  });
  return { rps: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx };
}

export function ms(value: number): string {
  return `${value.toFixed(3)} ms`;
}
