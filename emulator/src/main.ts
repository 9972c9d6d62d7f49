import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp, defaultDeps } from './app.ts';
import {
  MAIN_HELP,
  SERVE_HELP,
  UsageError,
  parseServeOptions,
  type ServeOptions,
} from './cli-options.ts';

/** The `mailtwin` command. Exit status: 0 on a clean stop, 2 on bad configuration. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(MAIN_HELP);
    return 0;
  }
  if (command !== 'serve') {
    process.stderr.write(`mailtwin: unknown command "${command}"\n\n${MAIN_HELP}`);
    return 2;
  }
  let options: ServeOptions | 'help';
  try {
    options = parseServeOptions(rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`mailtwin serve: ${error.message}\n\n${SERVE_HELP}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  await startServer(options);
  return 0;
}

/** Listens, prints the banner once listening, and stops cleanly on SIGINT/SIGTERM. */
async function startServer(options: ServeOptions): Promise<void> {
  const app = createApp(defaultDeps());
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info) =>
      resolve(info),
    );
    server.once('error', reject);
    const stop = (signal: string) => {
      process.stderr.write(`mailtwin: ${signal} received, stopping\n`);
      server.close(() => process.exit(0));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  const origin = `http://${formatHost(address.address)}:${address.port}`;
  process.stdout.write(banner(origin));
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Human lines first; the `KEY=value` lines last, so a script can read them. */
function banner(origin: string): string {
  return [
    'mailtwin: Email Service API emulator',
    `  API         ${origin}/openapi/v1`,
    `  Reference   ${origin}/openapi/docs`,
    `  Spec        ${origin}/openapi/openapi.json`,
    '',
    `MAILTWIN_BASE_URL=${origin}/openapi/v1`,
    '',
  ].join('\n');
}
