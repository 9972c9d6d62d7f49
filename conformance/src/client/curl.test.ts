import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayFileName, saveReplayFiles, toCurl, type ReplayContext } from './curl.ts';
import { recordBody, type Exchange } from './exchange.ts';

const BASE = 'https://mail.example.com/openapi/v1';
const CONTROL = 'https://mail.example.com/_mailtwin/v1';
const SECRET = 'sk-live-0123456789abcdef';
const SECOND = 'sk-second-0123456789abcd';
const TOKEN = 'mt_control-0123456789abcdef';
const CONTEXT: ReplayContext = {
  baseUrl: BASE,
  controlUrl: CONTROL,
  apiKey: SECRET,
  secondApiKey: SECOND,
  controlToken: TOKEN,
};

function exchange(overrides: Partial<Exchange['request']> = {}): Exchange {
  return {
    request: {
      method: 'GET',
      url: `${BASE}/mailboxes`,
      headers: { Authorization: `Bearer ${SECRET}` },
      ...overrides,
    },
    violations: [],
  };
}

/**
 * Runs a printed curl command in bash with `curl` replaced by a function that prints each of
 * its arguments NUL-terminated, and returns the arguments curl would have received.
 */
function argumentsCurlWouldGet(command: string, env: Record<string, string>): string[] {
  const script = `curl() { printf '%s\\0' "$@"; }\n${command}`;
  const out = execFileSync('bash', ['-c', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    // stdin from /dev/null: bash reads ~/.bashrc when stdin is a socket (as Node's pipes are).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.split('\0').slice(0, -1);
}

describe('toCurl', () => {
  it('writes a URL under the base URL as "$MAILTWIN_BASE_URL" plus the quoted relative path', () => {
    expect(toCurl(exchange({ url: `${BASE}/emails?mailbox=a%40acme.test&limit=5` }), CONTEXT)).toBe(
      `curl -i -X GET "$MAILTWIN_BASE_URL"'/emails?mailbox=a%40acme.test&limit=5' -H "Authorization: Bearer $MAILTWIN_API_KEY"`,
    );
  });

  it('writes an absolute, quoted URL when the URL is not under the base URL', () => {
    const docs = exchange({ url: 'https://mail.example.com/openapi/docs', headers: {} });
    expect(toCurl(docs, CONTEXT)).toBe(`curl -i -X GET 'https://mail.example.com/openapi/docs'`);
  });

  it('names each key by its role: API key, second key, control token', () => {
    const second = exchange({ headers: { authorization: `Bearer ${SECOND}` } });
    expect(toCurl(second, CONTEXT)).toContain(
      `-H "Authorization: Bearer $MAILTWIN_SECOND_API_KEY"`,
    );
    const control = exchange({
      url: `${CONTROL}/owners`,
      headers: { AUTHORIZATION: `Bearer ${TOKEN}` },
    });
    expect(toCurl(control, CONTEXT)).toBe(
      `curl -i -X GET "$MAILTWIN_CONTROL_URL"'/owners' -H "Authorization: Bearer $MAILTWIN_CONTROL_TOKEN"`,
    );
  });

  it('never prints a key of the run, wherever the request carries it', () => {
    const command = toCurl(
      exchange({
        url: `${BASE}/mailboxes?api_key=${SECRET}`,
        headers: { 'X-API-Key': SECRET, Authorization: `Bearer ${SECOND}` },
        body: `{"key":"${TOKEN}"}`,
      }),
      CONTEXT,
    );
    for (const secret of [SECRET, SECOND, TOKEN]) expect(command).not.toContain(secret);
    expect(command).toBe(
      `curl -i -X GET "$MAILTWIN_BASE_URL"'/mailboxes?api_key='"$MAILTWIN_API_KEY" -H "X-API-Key: $MAILTWIN_API_KEY" -H "Authorization: Bearer $MAILTWIN_SECOND_API_KEY" --data-binary '{"key":"'"$MAILTWIN_CONTROL_TOKEN"'"}'`,
    );
  });

  it('names a short key only as a whole Authorization value, not inside other text', () => {
    const command = toCurl(
      exchange({ url: `${BASE}/emails?q=test`, headers: { Authorization: 'Bearer test' } }),
      {
        baseUrl: BASE,
        apiKey: 'test',
      },
    );
    expect(command).toBe(
      `curl -i -X GET "$MAILTWIN_BASE_URL"'/emails?q=test' -H "Authorization: Bearer $MAILTWIN_API_KEY"`,
    );
  });

  it('prints other headers single-quoted, as given', () => {
    const command = toCurl(
      exchange({
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Test': "it's" },
      }),
      CONTEXT,
    );
    expect(command).toBe(
      `curl -i -X POST "$MAILTWIN_BASE_URL"'/mailboxes' -H 'Content-Type: application/json' -H 'X-Test: it'\\''s'`,
    );
  });

  it('passes a body with --data-binary, escaping single quotes', () => {
    const command = toCurl(
      exchange({ method: 'POST', headers: {}, body: `{"subject":"it's"}` }),
      CONTEXT,
    );
    expect(command).toBe(
      `curl -i -X POST "$MAILTWIN_BASE_URL"'/mailboxes' --data-binary '{"subject":"it'\\''s"}'`,
    );
  });

  it('prints a command that bash turns into exactly the original request', () => {
    const body = [
      `{"subject":"It's 'quoted' ''`,
      `"text":"$HOME \`id\` $(id) \\\\ \\" ! * ?",`,
      `"html":"<p>'</p>", "key": "${SECRET}"}`,
    ].join('\n');
    const url = `${BASE}/emails/01J'X/reply?x=$HOME&y='z'&k=${SECOND}`;
    const command = toCurl(
      exchange({
        method: 'POST',
        url,
        headers: {
          Authorization: `Bearer ${SECRET}`,
          'Content-Type': 'application/json',
          'X-Note': `a'b "c" $d ${TOKEN}!`,
        },
        body,
      }),
      CONTEXT,
    );
    for (const secret of [SECRET, SECOND, TOKEN]) expect(command).not.toContain(secret);
    const args = argumentsCurlWouldGet(command, {
      MAILTWIN_BASE_URL: BASE,
      MAILTWIN_API_KEY: SECRET,
      MAILTWIN_SECOND_API_KEY: SECOND,
      MAILTWIN_CONTROL_TOKEN: TOKEN,
      HOME: '/should-not-expand',
    });
    expect(args).toEqual([
      '-i',
      '-X',
      'POST',
      url,
      '-H',
      `Authorization: Bearer ${SECRET}`,
      '-H',
      'Content-Type: application/json',
      '-H',
      `X-Note: a'b "c" $d ${TOKEN}!`,
      '--data-binary',
      body,
    ]);
  });

  it('replays against another target by changing only $MAILTWIN_BASE_URL', () => {
    const command = toCurl(exchange({ url: `${BASE}/emails/abc` }), CONTEXT);
    const args = argumentsCurlWouldGet(command, {
      MAILTWIN_BASE_URL: 'http://127.0.0.1:4010/openapi/v1',
      MAILTWIN_API_KEY: 'sk-other',
    });
    expect(args).toEqual([
      '-i',
      '-X',
      'GET',
      'http://127.0.0.1:4010/openapi/v1/emails/abc',
      '-H',
      'Authorization: Bearer sk-other',
    ]);
  });

  it('reads a binary body from its saved file, named by its SHA-256', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 254, 255]);
    const command = toCurl(
      exchange({ method: 'POST', headers: {}, ...(await recordBody(bytes)) }),
      {
        ...CONTEXT,
        files: { dir: '/abs/report/replay-files', shown: 'report/replay-files' },
      },
    );
    expect(command).toBe(
      `curl -i -X POST "$MAILTWIN_BASE_URL"'/mailboxes' --data-binary '@report/replay-files/${replayFileName(bytes)}'`,
    );
    expect(replayFileName(bytes)).toMatch(/^[0-9a-f]{64}\.bin$/);
  });
});

/** A loopback server that keeps every request it gets (method, headers and body bytes). */
async function recordingServer() {
  const received: { method: string; headers: Record<string, string>; body: Buffer }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        headers: request.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { received, origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

describe('toCurl with real curl', () => {
  const folder = mkdtempSync(join(tmpdir(), 'replay-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** Records the request as the client would, saves its files, runs the printed command. */
  async function replay(body: FormData | Uint8Array, origin: string) {
    const base = `${origin}/openapi/v1`;
    const context: ReplayContext = {
      baseUrl: base,
      apiKey: SECRET,
      files: { dir: join(folder, 'replay-files'), shown: 'replay-files' },
    };
    const x: Exchange = {
      request: {
        method: 'POST',
        url: `${base}/attachments`,
        headers: { Authorization: `Bearer ${SECRET}` },
        ...(await recordBody(body)),
      },
      violations: [],
    };
    saveReplayFiles([x], context);
    const command = toCurl(x, context);
    expect(command).not.toContain(SECRET);
    const bash = spawn('bash', ['-c', `${command} -sS -o /dev/null`], {
      cwd: folder,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        MAILTWIN_BASE_URL: base,
        MAILTWIN_API_KEY: SECRET,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    expect(await new Promise((resolve) => bash.on('close', resolve))).toBe(0);
    return command;
  }

  it('replays a multipart upload as curl -F with the same parts, bytes, file names and types', async () => {
    const server = await recordingServer();
    try {
      const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'report; "final",v2.pdf');
      form.append('note', '@not-a-file <nor this');
      form.append('other', new Blob(['héllo'], { type: 'text/plain;charset=utf-8' }), 'a b.txt');
      const command = await replay(form, server.origin);
      expect(command).toContain(
        `-F 'file=@replay-files/${replayFileName(bytes)};filename="report; \\"final\\",v2.pdf";type=application/pdf'`,
      );
      expect(readFileSync(join(folder, 'replay-files', replayFileName(bytes)))).toEqual(
        Buffer.from(bytes),
      );

      const [request] = server.received;
      expect(request?.headers.authorization).toBe(`Bearer ${SECRET}`);
      const parsed = await new Request('http://x/', {
        method: 'POST',
        headers: { 'content-type': request!.headers['content-type']! },
        body: request!.body,
      }).formData();
      const file = parsed.get('file') as File;
      expect(file.name).toBe('report; "final",v2.pdf');
      expect(file.type).toBe('application/pdf');
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
      expect(parsed.get('note')).toBe('@not-a-file <nor this');
      const other = parsed.get('other') as File;
      expect([other.name, other.type, await other.text()]).toEqual([
        'a b.txt',
        'text/plain;charset=utf-8',
        'héllo',
      ]);
    } finally {
      server.close();
    }
  });

  it('replays a binary body byte for byte', async () => {
    const server = await recordingServer();
    try {
      const bytes = Uint8Array.from([0, 1, 2, 10, 13, 254, 255]);
      await replay(bytes, server.origin);
      expect(new Uint8Array(server.received[0]!.body)).toEqual(bytes);
    } finally {
      server.close();
    }
  });
});
