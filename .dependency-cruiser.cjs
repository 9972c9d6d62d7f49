// The layers of both programs, written down once and enforced in `npm test` (`npm run lint:deps`,
// tests/layers/lint-deps.js). Type-only imports count: a type is a dependency too.
// tests/unit/dependency-rules.test.ts shows each rule still rejects a known violation.
//
// Emulator (emulator/src), data flows one way (GUIDE "The shape of the house"):
//   main.ts, commands/, banner.ts, request-log.ts   the program: flags, start-up, logs
//   app.ts                                          the composition root (createApp, defaultDeps)
//   deps.ts                                         AppDeps and Services: the wiring's types
//   routes/, http/, dashboard/, binding/, chaos/    the edge: parse, authorize, validate, render
//   smtp/, fixtures/                                other ways in, through the services
//   services/                                       use cases
//   webhook-delivery/, mime/                        delivery and messages, for the services
//   domain/, store/                                 rules and persistence
//   errors.ts, clock.ts, ids.ts, events.ts, spec.ts the leaves every layer may use
// in-process.ts is the one module the suite may import. Not yet enforced: routes/ still read
// the store directly (routes/emails.ts, routes/control/), and mime/render-pool.ts runs the
// edge's request parsing (http/prepare-request.ts) on its threads.
// Conformance suite (conformance/src and conformance/checks), top to bottom:
//   cli/ -> report/ -> run/ -> checks -> check-runner/ -> worlds/ -> model/ -> client/ -> contract/
//   -> binding/ -> the leaves beside them (package-root.ts, canonical-json.ts)
// run/config.ts and run/profiles.ts are the run's plan (which target, which profile, which
// needs): a value every layer reads, importing nothing but binding/ types.
// shared/ (the flag-table machinery both programs' commands use) imports nothing of either
// program, so each may import it and neither imports the other through it.

const E = '^emulator/src/';
const S = '^conformance/src/';

/** Suite layers, top first: each may import itself and those below it, never one above. */
const SUITE_LAYERS = [
  ['cli', `${S}cli/`],
  ['report', `${S}report/`],
  ['run', `${S}run/setup\\.ts$`],
  ['checks', `^conformance/checks/|${S}failing-checks/`],
  ['check-runner', `${S}check-runner/`],
  ['worlds', `${S}worlds/`],
  ['model', `${S}model/`],
  ['client', `${S}client/`],
  ['contract', `${S}contract/`],
  ['binding', `${S}binding/`],
  ['base', `${S}[^/]+\\.ts$`],
];
const PLAN = `${S}run/(config|profiles)\\.ts$`;

const suiteLayerRules = SUITE_LAYERS.slice(1).map(([name, path], index) => ({
  name: `suite-layer-${name}`,
  severity: 'error',
  comment: `conformance: ${name} imports nothing above it (${SUITE_LAYERS.slice(0, index + 1)
    .map(([above]) => above)
    .join(', ')})`,
  from: { path },
  to: {
    path: SUITE_LAYERS.slice(0, index + 1)
      .map(([, above]) => `(${above})`)
      .concat(['binding', 'base'].includes(name) ? [`(${PLAN})`] : [])
      .join('|'),
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports, type-only imports included.',
      from: { path: '^(emulator|conformance|shared)/' },
      to: { circular: true },
    },

    {
      name: 'shared-is-neutral',
      severity: 'error',
      comment:
        'shared/ holds what both programs use (the flag-table machinery): it imports nothing of ' +
        'the emulator or the suite, so either may import it without reaching the other.',
      from: { path: '^shared/' },
      to: { path: '^(emulator|conformance)/' },
    },

    // ---- emulator ----
    {
      name: 'emulator-nothing-below-http-imports-it',
      severity: 'error',
      comment:
        'http/ is the edge (auth, limits, request validation): services, domain, store, webhook-delivery, ' +
        'smtp, fixtures and the shared leaves never import it. (mime/render-pool.ts is a thread ' +
        "pool: it runs the edge's request parsing, http/prepare-request.ts, beside body rendering.)",
      from: {
        path:
          `${E}(services|domain|store|webhook-delivery|smtp|fixtures)/` +
          `|${E}(errors|clock|ids|events|spec|json-schema|package-root|prebuilt)\\.ts$`,
      },
      to: { path: `${E}http/` },
    },
    {
      name: 'emulator-services-below-the-edge',
      severity: 'error',
      comment:
        'services/ are use cases: they import domain/, store/, webhook-delivery/, mime/ and leaves, never ' +
        'routes, the dashboard, the composition root, its wiring types or the program ' +
        '(http/: the rule above).',
      from: { path: `${E}services/` },
      to: {
        path:
          `${E}(routes|dashboard|commands|smtp|fixtures|test-helpers|binding)/` +
          `|${E}(app|deps|main|cli-options|banner|request-log|in-process)\\.ts$`,
      },
    },
    {
      name: 'emulator-domain-is-pure',
      severity: 'error',
      comment:
        'domain/ decides: it imports only itself and errors.ts, never SQL, HTTP, files or processes.',
      from: { path: `${E}domain/` },
      to: {
        path: `${E}|(^|/)node_modules/(hono|@hono/|better-sqlite3)|^(fs|http|https|child_process)$`,
        pathNot: `${E}(domain/|errors\\.ts$)`,
      },
    },
    {
      name: 'emulator-store-below-services',
      severity: 'error',
      comment: 'store/ persists: it imports only itself, domain/ and errors.ts, never a request.',
      from: { path: `${E}store/` },
      to: {
        path: `${E}|(^|/)node_modules/(hono|@hono/)`,
        pathNot: `${E}(store/|domain/|errors\\.ts$)`,
      },
    },
    {
      name: 'emulator-dashboard-through-services',
      severity: 'error',
      comment: 'The dashboard reads and changes data through services, never the store.',
      from: { path: `${E}dashboard/` },
      to: { path: `${E}store/` },
    },
    {
      name: 'emulator-composition-root-on-top',
      severity: 'error',
      comment:
        'app.ts builds the app; only the program (main.ts, commands/), test helpers and the ' +
        "suite's entry point (in-process.ts) import it. Shared types live in deps.ts.",
      from: { path: E, pathNot: `${E}(main\\.ts$|commands/|test-helpers/|in-process\\.ts$)` },
      to: { path: `${E}app\\.ts$` },
    },
    {
      name: 'emulator-flags-stay-in-the-program',
      severity: 'error',
      comment:
        'cli-options.ts parses flags; the composition root and everything below take values, ' +
        'not flags (a default lives where the value is used).',
      from: {
        path:
          `${E}(app|deps|in-process)\\.ts$` +
          `|${E}(routes|http|dashboard|services|domain|store|webhook-delivery|mime|smtp|fixtures|binding)/`,
      },
      to: { path: `${E}cli-options\\.ts$` },
    },
    {
      name: 'emulator-event-bus-injected',
      severity: 'error',
      comment:
        'The event bus is made once by the composition root and injected (AppDeps.events); ' +
        'others import events.ts for its types only.',
      from: { path: E, pathNot: `${E}(app|main|in-process)\\.ts$|${E}test-helpers/` },
      to: { path: `${E}events\\.ts$`, dependencyTypesNot: ['type-only'] },
    },

    // ---- conformance suite ----
    {
      name: 'suite-one-door-into-the-emulator',
      severity: 'error',
      comment:
        'The suite imports from the emulator only what builds the in-process target, through ' +
        'emulator/src/in-process.ts, and only from its in-process world (worlds/targets.ts).',
      from: { path: '^conformance/', pathNot: `${S}worlds/targets\\.ts$` },
      to: { path: '^emulator/' },
    },
    {
      name: 'suite-door-is-in-process-ts',
      severity: 'error',
      comment: 'The in-process world reaches the emulator through in-process.ts alone.',
      from: { path: `${S}worlds/targets\\.ts$` },
      to: { path: '^emulator/', pathNot: `${E}in-process\\.ts$` },
    },
    {
      name: 'suite-plan-is-a-leaf',
      severity: 'error',
      comment: "The run's plan (run/config.ts, run/profiles.ts) imports nothing but binding/.",
      from: { path: PLAN },
      to: { path: `${S}`, pathNot: `${S}binding/|${PLAN}` },
    },
    ...suiteLayerRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|\\.test\\.ts$|(^|/)generated/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
