/**
 * The ceiling for list throughput: bare Hono, served as the emulator serves (node-server.ts),
 * answering every GET with the bytes and content type the emulator gave for the same request
 * (read from a file), so the difference to the emulator is what the emulator does per request.
 * Usage: `node bench/same-bytes-server.ts <port> <body-file> <content-type>` (through tsx).
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { serveWithJsonErrors } from '../emulator/src/http/node-server.ts';

const [port, file, contentType] = process.argv.slice(2);
const bytes = readFileSync(file as string);
// Every method, so a mix's PATCH costs the ceiling what a GET does.
const app = new Hono().all('*', (c) =>
  c.body(bytes, 200, { 'content-type': contentType as string }),
);
// The emulator's own server around @hono/node-server (answers written together, the same
// keep-alive), so the ceiling is the same stack.
serveWithJsonErrors({ fetch: app.fetch, port: Number(port), hostname: '127.0.0.1' }, () => {});
