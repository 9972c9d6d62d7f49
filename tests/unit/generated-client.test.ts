// A client generated from the served document works without casts (issue 27 item 9).
//
// Given the emulator in process with the demo data (./spec-examples/world.ts), its
// /openapi/openapi.json is saved and turned into types by the openapi-typescript CLI with its
// default flags, as a user would; ./generated-client/calls.ts, a program that calls every
// operation through openapi-fetch with no cast, must pass `tsc --noEmit` (strict) against those
// types and then, run against the emulator, get each operation's documented success status.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../emulator/src/spec.ts';
import { operationsOf, successOf } from './spec-examples/document.ts';
import { createWorld, DEMO_KEY, ORIGIN, type World } from './spec-examples/world.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./generated-client/calls.ts', import.meta.url));
const OUT = fileURLToPath(new URL('./generated-client/out/', import.meta.url));
const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;

/** What ./generated-client/calls.ts exports. */
interface Program {
  callEveryOperation(options: {
    baseUrl: string;
    apiKey: string;
    fetch?: (request: Request) => Promise<Response>;
  }): Promise<{ operationId: string; status: number }[]>;
}

const spec = loadSpec();
const apiOperations = operationsOf(spec).filter((op) => op.section === 'paths');

describe('a client generated from /openapi/openapi.json (openapi-typescript defaults + openapi-fetch)', () => {
  let world: World;
  let generated: string;

  beforeAll(async () => {
    world = await createWorld(spec);
    const served = await world.app.request(`${ORIGIN}/openapi/openapi.json`);
    expect(served.status).toBe(200);
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    writeFileSync(`${OUT}openapi.json`, await served.text());
    await run(bin('openapi-typescript'), [`${OUT}openapi.json`, '-o', `${OUT}api.d.ts`], {
      cwd: ROOT,
    });
    generated = readFileSync(`${OUT}api.d.ts`, 'utf8');
  });

  it('types replyAll as optional and the upload file as something a Blob or File is', () => {
    expect(generated).toMatch(/replyAll\?: boolean;/);
    expect(generated).toMatch(/ file: unknown;/);
  });

  it('type-checks a program calling every operation without casts (tsc --noEmit, strict)', async () => {
    const code = readFileSync(PROGRAM, 'utf8').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bas [A-Za-z{[]|: any\b|@ts-/);
    writeFileSync(
      `${OUT}tsconfig.json`,
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['../calls.ts'],
      }),
    );
    const checked = await run(bin('tsc'), ['--noEmit', '-p', `${OUT}tsconfig.json`], {
      cwd: ROOT,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(checked.stdout).toBe('');
  });

  it('gets every operation its documented success status from the emulator with the demo data', async () => {
    // Imported by URL: a literal path would pull the program into the project's own type-check,
    // where ./generated-client/out does not exist.
    const { callEveryOperation } = (await import(pathToFileURL(PROGRAM).href)) as Program;
    const calls = await callEveryOperation({
      baseUrl: `${ORIGIN}/openapi/v1`,
      apiKey: DEMO_KEY,
      fetch: (request) => Promise.resolve(world.app.request(request)),
    });
    const expected = apiOperations.map((op) => ({
      operationId: op.operationId,
      status: Number(successOf(op).status),
    }));
    expect([...calls].sort((a, b) => a.operationId.localeCompare(b.operationId))).toEqual(
      expected.sort((a, b) => a.operationId.localeCompare(b.operationId)),
    );
  });
});
