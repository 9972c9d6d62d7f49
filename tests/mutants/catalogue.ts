/**
 * Every named mutant, one or more per conformance check that does not already fail against
 * the Prism mock. Grouped by the check file whose check catches it.
 *
 * The format of an entry's edit (the conformant variants' edits, tests/variants, are the same),
 * applied by tests/mutants/anchor.ts:
 * - `file`: where the code is, relative to the repository root.
 * - `find`: a piece of that code, matched as TypeScript tokens: layout, line breaks, comments,
 *   the quotes of a string and what prettier adds or drops as it reflows (a trailing comma, a
 *   last `;` before `}`, parentheses around a `return` argument) do not matter, so reformatting
 *   needs no edit here. It must match exactly once. A `find` that starts or ends inside a token
 *   (a piece of SQL in a template) and any `find` in a file that is not TypeScript
 *   (spec/openapi.yaml) is matched as exact text instead.
 * - `within` (optional): the name of the function, method, class, `const` or property the code
 *   lies in (`forward`, or `SendService.forward`); only matches inside it count. Give it when
 *   `find` alone matches more than once, in the file or in the file's source tree.
 * - `replace`: written over the matched tokens (less the indent and line end it shares with
 *   `find`).
 * When the file no longer declares `within` (or, without `within`, no longer holds `find`), the
 * edit follows the code: the one file of the same source tree (emulator/src) that holds it is
 * changed instead. So moving a function to another file needs no edit here either; a `find` that
 * then matches in two files asks for a `within`. tests/unit/catalogue-refactor.test.ts proves it
 * on a copy reformatted with another line width and with the pinned files moved.
 */
import type { NamedMutant } from './named-mutant.ts';
import { ACCESS_AND_READING } from './catalogue/access-and-reading.ts';
import { SENDING } from './catalogue/sending.ts';
import { SUITE_POWER } from './catalogue/suite-power.ts';
import { THREADS_AND_WEBHOOKS } from './catalogue/threads-and-webhooks.ts';

export const CATALOGUE: readonly NamedMutant[] = [...ACCESS_AND_READING, ...SENDING, ...THREADS_AND_WEBHOOKS, ...SUITE_POWER];
