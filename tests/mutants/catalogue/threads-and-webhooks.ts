/** Named mutants caught by reply-forward and webhooks checks. */
import type { NamedMutant } from '../named-mutant.ts';

export const THREADS_AND_WEBHOOKS: readonly NamedMutant[] = [
];
