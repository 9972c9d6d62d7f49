/** Named mutants caught by sending, templates and generated-inputs checks. */
import type { NamedMutant } from '../named-mutant.ts';

export const SENDING: readonly NamedMutant[] = [
];
