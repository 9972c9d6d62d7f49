import { createApp, defaultDeps } from './app.ts';
import type { AppDeps } from './deps.ts';
import { loadBindingFile } from './binding/load.ts';

export { httpConnector, type Connector } from './webhook-delivery/connector.ts';
export type { Resolver } from './webhook-delivery/endpoint-guard.ts';

/** What the suite sets of an in-process emulator: its deps, and a binding file to speak. */
export interface InProcessOptions extends Partial<Omit<AppDeps, 'binding'>> {
  /** `--emulator-binding`: a binding file (binding/load.ts) the emulator speaks at its edge. */
  bindingFile?: string;
}

/** The emulator answering in this process, with no socket. */
export interface InProcessEmulator {
  fetch(request: Request): Promise<Response>;
}

/**
 * The one module of the emulator the conformance suite imports (.dependency-cruiser.cjs): it
 * builds the emulator in the suite's own process for its in-process target, and hands over the
 * types of the network the suite injects (connector, resolver). Nothing else of the emulator
 * reaches the suite, so the oracle shares no code with what it judges.
 */
export function inProcessEmulator({ bindingFile, ...deps }: InProcessOptions): InProcessEmulator {
  const app = createApp(
    defaultDeps({
      ...deps,
      ...(bindingFile === undefined ? {} : { binding: loadBindingFile(bindingFile) }),
    }),
  );
  return { fetch: async (request) => app.fetch(request) };
}
