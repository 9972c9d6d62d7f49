// Runs in every check worker before the checks: one seed and one run count for all properties,
// so a whole run replays from the seed it printed.
import fc from 'fast-check';
import { readRunConfig } from './config.ts';

const { seed, numRuns } = readRunConfig();
fc.configureGlobal({ seed, numRuns });
