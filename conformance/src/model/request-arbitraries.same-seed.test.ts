/**
 * The request generators draw the same cases for the same seed: for every operation the
 * generated-inputs check covers, N valid, edge and invalid cases drawn with a fixed seed (and
 * the rule each is charged to) match a snapshot recorded from the generators as they were.
 * Reorganising the generators' code must leave this green without re-recording; a change that
 * means to alter the cases re-records it with UPDATE_SAME_SEED=1 and says why in its commit.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  caseRule,
  codeRule,
  edgeCase,
  invalidBody,
  validBody,
  validCase,
  type RequestCase,
  type RequestContext,
} from './request-arbitraries.ts';

const SNAPSHOT = fileURLToPath(new URL('./request-arbitraries.same-seed.test.json', import.meta.url));
const SEED = 20261124;
const CASES = 60;
const OPERATIONS = [
  'sendEmail',
  'replyToEmail',
  'forwardEmail',
  'updateEmail',
  'listEmails',
  'uploadAttachment',
];

/** A fixed world: two mailboxes, one more upload than §8's 20 attachments, as the check has. */
const CONTEXT: RequestContext = {
  mailboxes: ['box-0@tenant.conformance.test', 'box-1@tenant.conformance.test'],
  uploadIds: Array.from({ length: 21 }, (_, i) => `att_${String(i).padStart(4, '0')}`),
  implicitRecipients: 1,
};

type Generator = 'valid' | 'edge' | 'invalid';

function casesOf(operationId: string, generator: Generator): fc.Arbitrary<RequestCase> {
  switch (generator) {
    case 'valid':
      return validBody(operationId, CONTEXT).map((body) => validCase(operationId, body));
    case 'edge':
      return edgeCase(operationId, CONTEXT);
    case 'invalid':
      return invalidBody(operationId, CONTEXT);
  }
}

interface Drawn {
  /** SHA-256 of every case, fc.stringify'd with its rules, in order. */
  sha256: string;
  /** The first case, clipped, to read what the generator makes. */
  sample: string;
  /** Each case's `why`, so a changed case shows which one. */
  whys: string[];
}

function draw(operationId: string, generator: Generator): Drawn {
  const cases = fc.sample(casesOf(operationId, generator), { seed: SEED, numRuns: CASES });
  const hash = createHash('sha256');
  for (const c of cases) {
    const rules = { caseRule: caseRule(operationId, c), codeRule: codeRule(operationId, c) };
    hash.update(`${fc.stringify(c)}\u0000${fc.stringify(rules)}\n`);
  }
  return {
    sha256: hash.digest('hex'),
    sample: [...fc.stringify(cases[0])].slice(0, 300).join(''),
    whys: cases.map((c) => c.why),
  };
}

function drawAll(): Record<string, Record<Generator, Drawn>> {
  return Object.fromEntries(
    OPERATIONS.map((operationId) => [
      operationId,
      {
        valid: draw(operationId, 'valid'),
        edge: draw(operationId, 'edge'),
        invalid: draw(operationId, 'invalid'),
      },
    ]),
  );
}

describe('request generators, same seed', () => {
  const drawn = drawAll();
  if (process.env.UPDATE_SAME_SEED === '1') {
    writeFileSync(SNAPSHOT, `${JSON.stringify(drawn, null, 2)}\n`);
  }
  const recorded = (
    existsSync(SNAPSHOT) ? JSON.parse(readFileSync(SNAPSHOT, 'utf8')) : {}
  ) as Partial<typeof drawn>;

  for (const operationId of OPERATIONS) {
    for (const generator of ['valid', 'edge', 'invalid'] as const) {
      it(`${operationId}: the ${generator} cases of seed ${SEED} are the recorded ones`, () => {
        const now = drawn[operationId]![generator];
        const then = recorded[operationId]?.[generator];
        expect(now.whys).toEqual(then?.whys);
        expect(now.sample).toBe(then?.sample);
        expect(now.sha256, 'the cases, byte for byte').toBe(then?.sha256);
      });
    }
  }
});
