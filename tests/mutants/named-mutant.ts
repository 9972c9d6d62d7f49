/**
 * A named mutant: one deliberate bug in the emulator, written by hand, that breaks one
 * documented or decided rule. Each names the check that must catch it, so the catalogue is
 * the proof that the check can fail (issue 8 item 5): `npm run can-fail` applies each mutant
 * to a copy of the repository and runs that check against the broken emulator.
 */
export interface NamedMutant {
  /** Stable id, `M-<n>`. */
  id: string;
  /** The rule of conformance/rules.yaml the bug breaks. */
  rule: string;
  /** The bug, in a sentence a vendor would recognise. */
  bug: string;
  /** File to change, relative to the repository root. */
  file: string;
  /** Source text to replace; it must occur exactly once in the file. */
  find: string;
  replace: string;
  /** The behaviour (check name without its rule ids) of the check that must fail. */
  caughtBy: string;
  /**
   * Where a renaming binding makes the fault something no client can see (`npm run can-fail --
   * --binding`): a binding whose entry at `entry` (a JSON pointer into the binding, e.g.
   * `/operations/sendEmail/answer`) differs from the default's, says `reason`. The mutant is then
   * not checkable under that binding, rather than a loss of the suite's power.
   */
  hiddenBy?: { entry: string; reason: string };
}

export class StaleMutantError extends Error {
  override name = 'StaleMutantError';
}

/**
 * The file's source with the mutant applied. Refuses a `find` that is missing or ambiguous:
 * a mutant that no longer applies must be rewritten, not silently skipped.
 */
export function applyMutant(
  source: string,
  mutant: Pick<NamedMutant, 'id' | 'file' | 'find' | 'replace'>,
): string {
  const first = source.indexOf(mutant.find);
  if (first === -1) {
    throw new StaleMutantError(
      `${mutant.id}: ${mutant.file} no longer contains ${JSON.stringify(mutant.find)}`,
    );
  }
  if (source.indexOf(mutant.find, first + 1) !== -1) {
    throw new StaleMutantError(
      `${mutant.id}: ${JSON.stringify(mutant.find)} occurs more than once in ${mutant.file}; give more context`,
    );
  }
  if (mutant.find === mutant.replace) {
    throw new StaleMutantError(`${mutant.id}: replace is the same as find, nothing would change`);
  }
  return source.slice(0, first) + mutant.replace + source.slice(first + mutant.find.length);
}
