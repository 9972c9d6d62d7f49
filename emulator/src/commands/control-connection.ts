import { UsageError } from '../cli-options.ts';
import type { Flag } from '../../../shared/flag-table.ts';

/** The flags `mailtwin listen` and `mailtwin trigger` both take to find the emulator. */
export const CONTROL_FLAGS = [
  {
    name: 'url',
    type: 'string',
    value: '<url>',
    unset: '$MAILTWIN_CONTROL_URL',
    description: 'The emulator (its origin or control URL)',
  },
  {
    name: 'token',
    type: 'string',
    value: '<token>',
    unset: '$MAILTWIN_CONTROL_TOKEN',
    description: 'Its control token',
  },
] as const satisfies readonly Flag[];

/** A running emulator's control plane, as `mailtwin listen` and `mailtwin trigger` reach it. */
export interface ControlConnection {
  /** `…/_mailtwin/v1`, without a trailing slash. */
  url: string;
  token: string;
}

/** A refusal of the control plane: its `{code, message}` and the HTTP status. */
export class ControlError extends Error {
  override name = 'ControlError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const CONTROL_PATH = '/_mailtwin/v1';

/**
 * The control plane from `--url` (the emulator's origin or its control URL) and `--token`, else
 * from the banner's `MAILTWIN_CONTROL_URL` and `MAILTWIN_CONTROL_TOKEN` in the environment.
 */
export function controlConnection(
  flags: { url?: string | undefined; token?: string | undefined },
  env: NodeJS.ProcessEnv,
): ControlConnection {
  const raw = flags.url ?? env.MAILTWIN_CONTROL_URL;
  const token = flags.token ?? env.MAILTWIN_CONTROL_TOKEN;
  if (raw === undefined || raw === '')
    throw new UsageError(
      'no emulator to talk to: give --url, or load the banner lines (MAILTWIN_CONTROL_URL, MAILTWIN_CONTROL_TOKEN) into the environment',
    );
  if (token === undefined || token === '')
    throw new UsageError('no control token: give --token, or set MAILTWIN_CONTROL_TOKEN');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url must be the emulator's URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url must be an http(s) URL, got "${raw}"`);
  const path = url.pathname.replace(/\/+$/, '');
  return {
    url: `${url.origin}${path.endsWith(CONTROL_PATH) ? path : `${path}${CONTROL_PATH}`}`,
    token,
  };
}

/** One control-plane call; its JSON answer, or a ControlError carrying the emulator's reason. */
export async function controlCall<T>(
  connection: ControlConnection,
  method: string,
  path: string,
  body?: { json: unknown } | { raw: Uint8Array; contentType: string },
): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${connection.token}` };
  let payload: string | Uint8Array | undefined;
  if (body !== undefined && 'json' in body) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body !== undefined) {
    headers['Content-Type'] = body.contentType;
    payload = body.raw;
  }
  let response: Response;
  try {
    response = await fetch(`${connection.url}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new UsageError(
      `cannot reach the emulator at ${connection.url}${cause === undefined ? '' : ` (${cause})`}: is mailtwin serve running?`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    let error: { code?: string; message?: string } = {};
    try {
      error = JSON.parse(text) as typeof error;
    } catch {
      // Not the emulator's JSON error: the status says enough.
    }
    if (response.status === 401)
      throw new UsageError(`the control token is not accepted by ${connection.url} (401)`);
    throw new ControlError(
      response.status,
      error.code ?? 'http_error',
      error.message ?? `${method} ${path} answered ${response.status}`,
    );
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
