/**
 * A named mutant: one deliberate bug in the emulator, written by hand, that breaks one
 * documented or decided rule. Each names the check that must catch it, so the catalogue is
 * the proof that the check can fail (issue 8 item 5): `npm run can-fail` applies each mutant
 * to a copy of the repository and runs that check against the broken emulator.
 */
import { applyEdit, applyEditIn, treeAt } from './anchor.ts';

export interface NamedMutant {
  /** Stable id, `M-<n>`. */
  id: string;
  /** The rule of conformance/rules.yaml the bug breaks. */
  rule: string;
  /** The bug, in a sentence a vendor would recognise. */
  bug: string;
  /** File to change, relative to the repository root. */
  file: string;
  /**
   * Source to replace: TypeScript tokens (layout and comments aside) that must occur exactly
   * once in the file, or in the declaration named by `within` (tests/mutants/anchor.ts).
   */
  find: string;
  replace: string;
  /** The function, method, class or variable `find` lies in, where `find` alone is not unique. */
  within?: string;
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

export { StaleEditError as StaleMutantError } from './anchor.ts';

/**
 * The file's source with the mutant applied, looked for in this source only (see anchor.ts for
 * how `find` and `within` match). Refuses a `find` that is missing or ambiguous: a mutant that
 * no longer applies must be rewritten, not silently skipped.
 */
export function applyMutant(
  source: string,
  mutant: Pick<NamedMutant, 'id' | 'file' | 'find' | 'replace' | 'within'>,
): string {
  return applyEdit(source, mutant, mutant.id);
}

/**
 * The mutant applied to the repository (or copy) at `root`: the file it changes, which is the
 * one it names unless the code it anchors to moved (anchor.ts), and that file's text before and
 * after.
 */
export function mutateTree(
  root: string,
  mutant: Pick<NamedMutant, 'id' | 'file' | 'find' | 'replace' | 'within'>,
): { file: string; original: string; mutated: string } {
  const tree = treeAt(root);
  const { file, text } = applyEditIn(tree, mutant, mutant.id);
  return { file, original: tree.read(file)!, mutated: text };
}
