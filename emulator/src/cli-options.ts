import { parseArgs } from 'node:util';

/** The options of `mailtwin serve`, named in the contract issue and kept for every later one. */
export interface ServeOptions {
  port: number;
  host: string;
}

export const SERVE_HELP = `Usage: mailtwin serve [options]

Starts the Email Service API emulator and prints KEY=value lines a script can read.

Options:
  --port <n>     TCP port (default 4025; 0 picks a free port, printed in the banner)
  --host <addr>  Address to listen on (default 127.0.0.1)
  -h, --help     Show this help
`;

export const MAIN_HELP = `Usage: mailtwin <command> [options]

Commands:
  serve    Start the emulator (see: mailtwin serve --help)
  help     Show this help
`;

/** A configuration error: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `mailtwin serve` arguments; throws UsageError with a reason on bad input. */
export function parseServeOptions(argv: string[]): ServeOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return 'help';
  return {
    port: parsePort(values.port ?? '4025'),
    host: values.host ?? '127.0.0.1',
  };
}

function parsePort(raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}
