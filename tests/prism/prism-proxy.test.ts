/**
 * Independent validation: the conformance suite runs through `prism proxy --errors` in front of
 * the emulator, so every response the emulator gives is validated against spec/openapi.yaml a
 * second time, by Prism's own router and validator. With `--errors`, a response that breaks
 * the spec reaches the suite as Prism's 500 `…#VIOLATIONS` and is logged as such.
 *
 * `--validate-request false`: Prism forwards the requests the suite sends with invalid input on
 * purpose instead of answering them 422 itself, so only responses are judged by Prism.
 *
 * Zero failed checks cannot be had through Prism 5.14: it answers some requests itself (paths
 * outside the spec, a missing bearer, JSON it cannot parse), alters binary uploads, and passes
 * the emulator's own URLs on. A failed check passes here only when its failure text carries
 * one of those fingerprints (signatureArtifacts, BINARY_CHECKS); anything else fails the test
 * with the whole failure text. The last tests show the Prism behaviours this relies on.
 *
 * Deterministic by construction (issue 12 item 22): the emulator keeps Prism's connections open
 * (harness IDLE_CONNECTION_MS), the suite sends one request at a time, what Prism forwarded is
 * counted where it arrives (the emulator's own record), and Prism's log is read only once
 * flushed() shows it complete.
 */
import { Agent, createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IDLE_CONNECTION_MS,
  SPEC,
  describeCheck,
  failedChecks,
  operationOf,
  prismOwnAnswers,
  requestsUnder,
  responseViolations,
  runConformance,
  specOperations,
  startEmulator,
  startPrism,
  type ConformanceRun,
  type ReceivedRequest,
  type RunningEmulator,
  type RunningPrism,
} from './harness.ts';

const CONTROL_TOKEN = 'prism-test';
const MAILBOX = 'prism@prism.test';
/**
 * Prism's flags: response violations become 500s; requests go upstream unjudged. Its log keeps
 * warnings and errors (every response violation and every answer of its own) but not the info
 * lines, which carry each request's whole body: formatting those took Prism about a second per
 * MiB of upload, most of the run's time. What it forwarded is counted at the emulator instead.
 */
const PROXY_FLAGS = ['--errors', '--validate-request', 'false', '--verboseLevel', 'warn'];

/** Why a check cannot pass through Prism 5.14 though the emulator answers it correctly. */
interface ProxyArtifact {
  because: string;
  /** Whether this failure is that artifact, from its text (and Prism's log). */
  explains(errors: string): boolean;
}

/** Failures that carry Prism's own fingerprint, whichever check they come from. */
function signatureArtifacts(): ProxyArtifact[] {
  return [
    {
      because:
        "Prism serves only the spec's paths: {origin}/openapi/openapi.json and {origin}/openapi/docs get its own 404",
      explains: (errors) =>
        /404 \(application\/problem\+json\) \{"type":"https:\/\/stoplight\.io\/prism\/errors#NO_PATH_MATCHED_ERROR"/.test(
          errors,
        ),
    },
    {
      because:
        'Prism checks the security requirement itself: a request without Authorization: Bearer gets its own 401',
      explains: (errors) =>
        /401 \(application\/problem\+json\) \{"type":"https:\/\/stoplight\.io\/prism\/errors#UNAUTHORIZED"/.test(
          errors,
        ),
    },
    {
      because:
        "Prism parses a JSON body itself: malformed JSON (or a Content-Type it cannot parse) gets its HTTP layer's (micri's) own answer, never forwarded",
      explains: (errors) =>
        /\(application\/json; charset=utf-8\) \{"error":\{"code":"(?:invalid_json|internal_server_error)","message":"(?:Invalid JSON|Internal Server Error)"\}\}/.test(
          errors,
        ),
    },
    {
      because:
        "Prism's HTTP layer (micri) caps a request body at 10 MB and answers a larger one itself, in its own error shape, before forwarding it: the suite's 25 MiB probe of the platform limit (D-27)",
      explains: (errors) =>
        /413 \(application\/json; charset=utf-8\) \{"error":\{"code":"request_entity_too_large","message":"Body exceeded 10mb limit"\}\}/.test(
          errors,
        ),
    },
    {
      because:
        'Prism answers a method a spec path lacks itself, with its own 405 (no code, no Allow), never forwarded',
      explains: (errors) =>
        /405 \(application\/problem\+json\) \{"type":"https:\/\/stoplight\.io\/prism\/errors#NO_METHOD_MATCHED_ERROR"/.test(
          errors,
        ),
    },
    {
      because:
        "Prism serves the API at its root (the run's --unversioned-base-url), so {origin}/mailboxes is the API",
      explains: (errors) => /GET \{origin\}\/mailboxes must not be the API \(got 200/.test(errors),
    },
    {
      because:
        "Prism passes the emulator's Location (/openapi/v1/emails/…) on unchanged while it serves the API at its root",
      explains: (errors) =>
        /Location names the sent copy: expected '\/openapi\/v1\/emails\//.test(errors),
    },
    {
      because:
        "URLs the emulator builds (attachment url, unsubscribe link) name the emulator's origin: Prism does not forward the Host it was reached at",
      explains: (errors) => errors.includes(`expected '${emulator.origin}' to be '${prism.url}'`),
    },
    {
      because:
        'Prism drops a JSON body that parses to null (or false, 0, "") but forwards its Content-Length, so the emulator waits for a body that never comes',
      explains: (errors) =>
        /no complete answer to (?:PATCH|POST) \S+ within \d+ ms \(--request-timeout\)/.test(
          errors,
        ) && forwarded.some((request) => !request.answered),
    },
  ];
}

const BINARY =
  'Prism reads a body that is not JSON as UTF-8 text, both ways: bytes that are not valid UTF-8 reach the emulator (uploads) and come back from it (downloads) as U+FFFD (see the last tests)';

/**
 * Checks that fail through Prism because it alters binary uploads, by behaviour, with the text
 * that shows it. Every one must fail (so a stale entry is noticed).
 */
const BINARY_CHECKS: { behaviour: string; evidence: RegExp }[] = [
  {
    behaviour: 'agrees with a model of the mailbox after any sequence of operations',
    // Shrinking ends at reading the attachment of a message or downloading the upload itself,
    // whichever the suite's commands reach first; either way the bytes' hash differs.
    evidence:
      /Counterexample: [\s\S]*bytes attached[\s\S]*bytes of (?:attachment \d+ of \w+|upload [\w-]+): expected '[0-9a-f…]+' to be '[0-9a-f…]+'/,
  },
  {
    behaviour:
      "reuses one upload in many sends; each message exposes its own attachment ids, whose bytes are the upload's",
    evidence: /to match object \{ name: 'contract\.pdf'/,
  },
  {
    behaviour:
      'accepts exactly 3 MiB of raw attachment data and refuses one byte more, pointing to the url',
    // The uploads grew on the way (1 MiB of random bytes arrives as about 1.8 MiB).
    evidence:
      /exactly 3 MiB: (?:expected 400 to be 201|a 2xx answer, got 400)[\s\S]*"code":"attachments_too_large"/,
  },
  {
    behaviour:
      'replaces only what is given: text replaces the body, subject the subject, attachmentIds the attachments ([] for none)',
    evidence: /expected \[ \[ 'extra\.bin', \d+ \] \] to deeply equal \[ \[ 'extra\.bin', 6 \] \]/,
  },
  {
    // Issue 16's checks of many-file messages: 3 MiB of random bytes arrive as about 5.4 MiB.
    behaviour:
      "downloads every file of a many-file message by its own attachment id, byte for byte: sent and received copies, a reply and a forward reusing used uploads, and a forward carrying the original's files",
    evidence: /the send: a 2xx answer, got 400[\s\S]*"code":"attachments_too_large"/,
  },
  {
    behaviour:
      "holds replies and forwards to 20 files, 3 MiB of raw attachment data and a 5 MiB message, a forward counting the original's files it carries",
    evidence: /with exactly 3 MiB: a 2xx answer, got 400[\s\S]*"code":"attachments_too_large"/,
  },
  {
    behaviour:
      "stores an upload's file once: sends, replies and forwards reusing it add no stored file and no byte",
    evidence: /the upload is stored: expected \{ files: \d+, bytes: \d+ \} to deeply equal/,
  },
  {
    behaviour:
      "keeps an upload's public url and its id working more than a year later: nothing expires them",
    evidence: /the url serves the uploaded bytes: expected '[0-9a-f…]+' to be '[0-9a-f…]+'/,
  },
  {
    behaviour:
      'attaches an upload listed twice as two attachments with ids of their own, counted twice toward 20 files and 3 MiB',
    evidence: /each copy downloads as the upload: expected '[0-9a-f…]+' to be '[0-9a-f…]+'/,
  },
  {
    // The original arrives through the control plane; its attachment's download comes back altered.
    behaviour:
      'forwards the original body, subject (Fwd: once) and attachments when no replacement is given',
    evidence: /forwarded bytes: expected false to be true/,
  },
];

/** The artifact a failed check shows, if any. */
function artifactOf(check: ReturnType<typeof failedChecks>[number]): string | undefined {
  const errors = check.errors.join('\n');
  const binary = BINARY_CHECKS.find((entry) => entry.behaviour === check.behaviour);
  if (binary !== undefined && binary.evidence.test(errors)) return BINARY;
  return signatureArtifacts().find((artifact) => artifact.explains(errors))?.because;
}

let emulator: RunningEmulator;
let prism: RunningPrism;
let run: ConformanceRun;
/** The API requests the emulator received during the run (all of them through Prism). */
let forwarded: ReceivedRequest[];
/** The key of the suite's owner, whose only mailbox is MAILBOX. */
let apiKey: string;

/** A control-plane call straight to the emulator (Prism knows only the public API). */
async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${emulator.origin}/_mailtwin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${CONTROL_TOKEN}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`control plane ${method} ${path}: ${response.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

beforeAll(async () => {
  emulator = await startEmulator({ controlToken: CONTROL_TOKEN, allowLoopbackWebhooks: false });
  const owner = await control<{ id: string }>('POST', '/owners', { name: 'Prism proxy test' });
  await control('POST', '/mailboxes', { address: MAILBOX });
  await control('PUT', `/owners/${owner.id}/grants/${encodeURIComponent(MAILBOX)}`);
  const key = await control<{ secret: string }>('POST', '/keys', {
    ownerId: owner.id,
    name: 'prism proxy test',
    scope: 'follow-owner',
  });
  apiKey = key.secret;
  prism = await startPrism(['proxy', SPEC, `${emulator.origin}/openapi/v1`, ...PROXY_FLAGS]);
  run = await runConformance([
    '--base-url',
    prism.url,
    '--unversioned-base-url',
    '--api-key',
    apiKey,
    '--control-url',
    `${emulator.origin}/_mailtwin/v1`,
    '--control-token',
    CONTROL_TOKEN,
    '--destructive',
    '--mailbox',
    MAILBOX,
    '--seed',
    '1',
    '--max-rps',
    '0',
  ]);
  forwarded = requestsUnder(emulator.requests(), '/openapi/v1');
  await prism.flushed();
}, 780_000);

afterAll(async () => {
  await prism?.stop();
  await emulator?.close();
});

describe('the conformance suite through prism proxy --errors in front of the emulator', () => {
  it('gets no response that Prism finds in breach of the spec', () => {
    const violations = responseViolations(prism.log());
    expect(violations, `Prism's response violations:\n${violations.join('\n')}`).toEqual([]);
    const reported = failedChecks(run.report).filter((check) =>
      /errors#VIOLATIONS|sl-violations/.test(check.errors.join('\n')),
    );
    expect(reported.map(describeCheck).join('\n\n')).toBe('');
  });

  it('fails no check but those Prism itself breaks, each for a reason its failure shows', () => {
    const failed = failedChecks(run.report);
    const unexplained = failed.filter((check) => artifactOf(check) === undefined);
    expect(
      unexplained.length,
      `checks failed through Prism for no reason of Prism's:\n\n${unexplained.map(describeCheck).join('\n\n')}`,
    ).toBe(0);
    const stale = BINARY_CHECKS.filter(
      (entry) => !failed.some((check) => check.behaviour === entry.behaviour),
    );
    expect(
      stale.map((entry) => entry.behaviour),
      'listed as broken by binary uploads through Prism but passed or did not run',
    ).toEqual([]);
    const reasons = new Map<string, string[]>();
    for (const check of failed) {
      const because = artifactOf(check)!;
      reasons.set(because, [...(reasons.get(because) ?? []), check.behaviour ?? check.name]);
    }
    console.info(
      `[prism] checks only Prism breaks (${failed.length}):\n${[...reasons]
        .map(([because, checks]) => `  ${because}:\n${checks.map((c) => `    - ${c}`).join('\n')}`)
        .join('\n')}`,
    );
    expect(run.report.problems, 'problems of the suite itself').toEqual([]);
  });

  it('sends at least 500 requests, at least 500 of them forwarded by Prism to the emulator', () => {
    expect(run.report.figures.requests, 'report.json figures.requests').toBeGreaterThanOrEqual(500);
    expect(forwarded.length, 'API requests the emulator received').toBeGreaterThanOrEqual(500);
  });

  it('exercises each of the 10 operations of the contract through Prism', () => {
    const operations = specOperations();
    expect(operations.map((op) => op.operationId).sort()).toHaveLength(10);
    const counts = new Map(operations.map((op) => [op.operationId, 0]));
    const unmatched: string[] = [];
    for (const request of forwarded) {
      const operation = operationOf(operations, request.method, request.path);
      if (operation === undefined) unmatched.push(`${request.method} ${request.path}`);
      else counts.set(operation.operationId, counts.get(operation.operationId)! + 1);
    }
    const table = [...counts].map(([id, n]) => `${id}: ${n}`).join(', ');
    console.info(`[prism] forwarded to the emulator and validated, by operation: ${table}`);
    console.info(
      `[prism] answered by Prism itself: ${JSON.stringify(Object.fromEntries(prismOwnAnswers(prism.log())))}`,
    );
    console.info(
      `[prism] suite: ${JSON.stringify(run.report.figures)} in ${Math.round(run.durationMs)} ms`,
    );
    expect(unmatched, 'forwarded requests that are no operation of the contract').toEqual([]);
    expect(
      [...counts].filter(([, n]) => n === 0).map(([id]) => id),
      table,
    ).toEqual([]);
  });
});

describe('prism proxy as this test uses it', () => {
  it('turns an upstream response that breaks the spec into a 500 naming the violation', async () => {
    // A stand-in upstream whose GET /mailboxes answers an address that is a number.
    const upstream: Server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify([{ address: 1, domain: 'acme.test', displayName: null }]));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    const broken = await startPrism([
      'proxy',
      SPEC,
      `http://127.0.0.1:${port}/openapi/v1`,
      ...PROXY_FLAGS,
    ]);
    try {
      const response = await fetch(`${broken.url}/mailboxes`, {
        headers: { Authorization: 'Bearer sk-AnyKey000001_0123456789abcdefghijABCDEFGHIJ01' },
      });
      expect(response.status).toBe(500);
      expect(await response.text()).toContain('prism/errors#VIOLATIONS');
      await broken.flushed();
      expect(responseViolations(broken.log())).toHaveLength(1);
    } finally {
      await broken.stop();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('forwards over one kept-alive upstream connection, which the emulator here keeps open for the whole run', async () => {
    // Why: Prism blocks for seconds on a large upload; had the emulator closed the idle
    // connection meanwhile, Prism would write the upload into it (EPIPE, its own 500).
    const clientPorts: number[] = [];
    const upstream: Server = createServer((request, response) => {
      clientPorts.push(request.socket.remotePort!);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('[]');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    const relay = await startPrism([
      'proxy',
      SPEC,
      `http://127.0.0.1:${port}/openapi/v1`,
      ...PROXY_FLAGS,
    ]);
    try {
      for (let i = 0; i < 2; i += 1) {
        const response = await fetch(`${relay.url}/mailboxes`, {
          headers: { Authorization: 'Bearer sk-AnyKey000001_0123456789abcdefghijABCDEFGHIJ01' },
        });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(clientPorts, 'the client port of each forwarded request').toHaveLength(2);
      expect(clientPorts[1], "the second request went over the first one's connection").toBe(
        clientPorts[0],
      );
    } finally {
      await relay.stop();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
    const agent = new Agent({ keepAlive: true });
    const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
      get(`${emulator.origin}/openapi/openapi.json`, { agent }, (response) => {
        response.resume();
        resolve(String(response.headers['keep-alive']));
      }).on('error', reject);
    }).finally(() => agent.destroy());
    expect(keepAlive, "the emulator's idle timeout, in seconds").toBe(
      `timeout=${IDLE_CONNECTION_MS / 1000}`,
    );
  });

  it('alters bytes that are not valid UTF-8 both ways, so binary checks cannot pass through it', async () => {
    const upload = async (base: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array([0x00, 0xff, 0x80, 0x41])]), 'b.bin');
      const response = await fetch(`${base}/attachments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}` },
        body: form,
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { size: number }).size;
    };
    expect(await upload(`${emulator.origin}/openapi/v1`), 'straight to the emulator').toBe(4);
    // 0xff and 0x80 each become U+FFFD, three bytes in UTF-8.
    expect(await upload(prism.url), 'through Prism').toBe(8);

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0x00, 0xff, 0x80, 0x41])]), 'c.bin');
    const stored = (await (
      await fetch(`${emulator.origin}/openapi/v1/attachments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}` },
        body: form,
      })
    ).json()) as { id: string };
    const download = async (base: string) => {
      const response = await fetch(`${base}/attachments/${stored.id}`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer()).toString('hex');
    };
    expect(await download(`${emulator.origin}/openapi/v1`), 'straight').toBe('00ff8041');
    expect(await download(prism.url), 'through Prism').toBe('00efbfbdefbfbd41');
  });

  it('forwards a JSON body of null as no body with its Content-Length, so no answer comes', async () => {
    const email = await control<{ id: string }>('POST', '/inbound', {
      mailbox: MAILBOX,
      from: 'sender@partner.test',
      subject: 'null body',
      text: 'x',
    });
    const patch = (base: string, waitMs: number) =>
      fetch(`${base}/emails/${email.id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: 'null',
        signal: AbortSignal.timeout(waitMs),
      });
    // The first wait only bounds a hang; the second cannot end early: no answer ever comes.
    expect((await patch(`${emulator.origin}/openapi/v1`, 60_000)).status, 'straight').toBe(400);
    await expect(patch(prism.url, 2_000), 'through Prism').rejects.toThrow(
      /aborted due to timeout/,
    );
  });
});
