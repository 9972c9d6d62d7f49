/**
 * The ceiling for list throughput: bare Hono on @hono/node-server answering every GET with the
 * bytes and content type the emulator gave for the same request (read from a file), so the
 * difference to the emulator is what the emulator does per request. Usage:
 * `node bench/same-bytes-server.ts <port> <body-file> <content-type>` (through tsx).
 */
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const [port, file, contentType] = process.argv.slice(2);
const bytes = readFileSync(file as string);
// Every method, so a mix's PATCH costs the ceiling what a GET does.
const app = new Hono().all('*', (c) =>
  c.body(bytes, 200, { 'content-type': contentType as string }),
);
serve({ fetch: app.fetch, port: Number(port), hostname: '127.0.0.1' });
