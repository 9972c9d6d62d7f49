/**
 * Every named mutant, one or more per conformance check that does not already fail against
 * the Prism mock. Grouped by the check file whose check catches it.
 */
import type { NamedMutant } from './named-mutant.ts';
import { ACCESS_AND_READING } from './catalogue/access-and-reading.ts';
import { SENDING } from './catalogue/sending.ts';
import { SUITE_POWER } from './catalogue/suite-power.ts';
import { THREADS_AND_WEBHOOKS } from './catalogue/threads-and-webhooks.ts';

export const CATALOGUE: readonly NamedMutant[] = [...ACCESS_AND_READING, ...SENDING, ...THREADS_AND_WEBHOOKS, ...SUITE_POWER];
