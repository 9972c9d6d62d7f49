import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the repo, typed by its JSDoc only
import { layerViolations } from '../layers/lint-deps.js';

/**
 * The layers of .dependency-cruiser.cjs hold only while each rule still matches what it means
 * to forbid: a renamed folder or a mistyped path would make a rule pass on everything. So a tiny
 * tree with one known violation of every rule is cruised with the real rule set, and every rule
 * must reject its own (type-only imports included, as in the real run).
 */
interface Rule {
  name: string;
}
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: Rule[];
};
const RULES = config.forbidden.map((rule) => rule.name);

/** Each file of the tree and the imports it makes; comments say which rule each one breaks. */
const TREE: Record<string, string[]> = {
  // no-circular, through type-only imports alone
  'emulator/src/domain/cycle-a.ts': ["import type { B } from './cycle-b.ts';"],
  'emulator/src/domain/cycle-b.ts': ["import type { A } from './cycle-a.ts';"],
  // shared-is-neutral
  'shared/flag-table.ts': ["import type { Access } from '../emulator/src/http/auth.ts';"],
  // emulator-nothing-below-http-imports-it
  'emulator/src/services/send.ts': ["import type { Access } from '../http/auth.ts';"],
  'emulator/src/http/auth.ts': [],
  // emulator-services-below-the-edge
  'emulator/src/services/upload.ts': ["import { routes } from '../routes/emails.ts';"],
  'emulator/src/routes/emails.ts': [],
  // emulator-domain-is-pure
  'emulator/src/domain/rules.ts': ["import type { Store } from '../store/store.ts';"],
  'emulator/src/store/store.ts': [],
  // emulator-store-below-services
  'emulator/src/store/email-store.ts': ["import { x } from '../services/inbound.ts';"],
  'emulator/src/services/inbound.ts': [],
  // emulator-dashboard-through-services
  'emulator/src/dashboard/pages/email.ts': ["import type { Store } from '../../store/store.ts';"],
  // emulator-composition-root-on-top
  'emulator/src/routes/control.ts': ["import type { Services } from '../app.ts';"],
  // emulator-flags-stay-in-the-program
  'emulator/src/app.ts': ["import { DEFAULT } from './cli-options.ts';"],
  'emulator/src/cli-options.ts': [],
  // emulator-event-bus-injected
  'emulator/src/webhook-delivery/dispatcher.ts': ["import { eventsOf } from '../events.ts';"],
  'emulator/src/events.ts': [],
  // suite-one-door-into-the-emulator
  'conformance/src/cli/main.ts': [
    "import { packagePath } from '../../../emulator/src/package-root.ts';",
  ],
  'emulator/src/package-root.ts': [],
  // suite-door-is-in-process-ts
  'conformance/src/worlds/targets.ts': [
    "import { createApp } from '../../../emulator/src/app.ts';",
  ],
  // suite-plan-is-a-leaf
  'conformance/src/run/config.ts': ["import type { Summary } from '../report/summary.ts';"],
  // suite-layer-*: each layer imports the one above it
  'conformance/src/report/summary.ts': ["import type { CliRun } from '../cli/options.ts';"],
  'conformance/src/cli/options.ts': [],
  'conformance/src/run/setup.ts': ["import { x } from '../report/summary.ts';"],
  'conformance/checks/sending.check.ts': ["import '../src/run/setup.ts';"],
  'conformance/src/check-runner/check.ts': ["import '../../checks/sending.check.ts';"],
  'conformance/src/worlds/send-world.ts': ["import { rule } from '../check-runner/check.ts';"],
  'conformance/src/model/statuses.ts': ["import type { W } from '../worlds/send-world.ts';"],
  'conformance/src/client/client.ts': ["import type { M } from '../model/statuses.ts';"],
  'conformance/src/contract/rules.ts': ["import type { C } from '../client/client.ts';"],
  'conformance/src/binding/binding.ts': [
    "import type { R } from '../contract/rules.ts';",
    "import type { P } from '../run/profiles.ts';",
  ],
  'conformance/src/run/profiles.ts': [],
  'conformance/src/package-root.ts': ["import type { B } from './binding/binding.ts';"],
};

let root: string;
let violations: { rule: { name: string }; from: string; to: string }[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mailtwin-layers-'));
  for (const [file, imports] of Object.entries(TREE)) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    writeFileSync(join(root, file), [...imports, 'export const x = 1;', ''].join('\n'));
  }
  violations = await layerViolations({
    baseDir: root,
    roots: ['emulator/src', 'conformance/src', 'conformance/checks', 'shared'],
  });
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the dependency rules (.dependency-cruiser.cjs)', () => {
  it('name more than a dozen rules, each once', () => {
    expect(RULES.length).toBeGreaterThan(12);
    expect(new Set(RULES).size).toBe(RULES.length);
  });

  it.each(RULES)('rule %s rejects its known violation', (name) => {
    expect(violations.filter((v) => v.rule.name === name).length).toBeGreaterThan(0);
  });

  it('count a cycle made of type-only imports', () => {
    const cycles = violations.filter((v) => v.rule.name === 'no-circular').map((v) => v.from);
    expect(cycles).toContain('emulator/src/domain/cycle-a.ts');
  });

  it('reject nothing but the planted violations', () => {
    const unexpected = violations.filter(
      (v) =>
        !(
          (v.rule.name === 'suite-door-is-in-process-ts' && v.to === 'emulator/src/app.ts') ||
          TREE[v.from] !== undefined
        ),
    );
    expect(unexpected).toEqual([]);
    // A file whose imports all go downhill breaks no rule.
    const clean = [
      'emulator/src/http/auth.ts',
      'emulator/src/events.ts',
      'conformance/src/cli/options.ts',
    ];
    for (const file of clean) expect(violations.filter((v) => v.from === file)).toEqual([]);
  });
});
