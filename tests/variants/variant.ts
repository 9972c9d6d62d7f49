/**
 * A conformant variant: the emulator changed on ONE point the service document leaves open,
 * obeying every sentence of it (issue 14 item 5). Where a named mutant is a bug the suite must
 * catch, a variant is another allowed choice the suite must accept: `npm run variants` applies
 * each to a copy of the repository and asserts the suite passes it, warning only on the decided
 * rule (spec/DECISIONS.md) it departs from, and fails it only under `--strict`.
 *
 * Edits have the named mutants' shape and are found by their code (tests/mutants/anchor.ts):
 * each `find` (TypeScript tokens, layout and comments aside, optionally `within` a named
 * declaration) must occur exactly once, in its file or where the code it anchors to moved, so a
 * variant that no longer applies is rewritten, never silently skipped.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEditIn, treeAt, type SourceTree } from '../mutants/anchor.ts';
import type { NamedMutant } from '../mutants/named-mutant.ts';

/** One find/replace on a file under emulator/src/. */
export type VariantEdit = Pick<NamedMutant, 'file' | 'find' | 'replace' | 'within'>;

/** The service document's own words that leave the point open. */
export interface Allowance {
  /** Its section, as the document numbers it: `§4.2`, `§7`. */
  section: string;
  /** A sentence (or table cell) of that section, word for word. */
  quote: string;
}

export interface Variant {
  /** Stable id, `V-<n>`. */
  id: string;
  /**
   * The decided rule (spec/DECISIONS.md, conformance/rules.yaml) this variant chooses otherwise;
   * absent when the document itself allows both behaviours (no decision was needed), so the
   * suite must pass the variant without a single warning, --strict included.
   */
  departsFrom?: string;
  /** The other choice, in a sentence a vendor would recognise. */
  change: string;
  /** Why the document allows it: the words that leave the point open. */
  allowedBy: Allowance[];
  /** Why no sentence of the document is broken, where that is not obvious. */
  note?: string;
  /** Applied in order; a later edit of the same file sees the earlier ones. */
  edits: VariantEdit[];
}

/**
 * The variant's edits applied to the sources of `tree`: the changed files (path → text), each
 * under the path where its edit was found.
 */
export function applyVariant(variant: Variant, tree: SourceTree): Map<string, string> {
  const changed = new Map<string, string>();
  const current: SourceTree = {
    read: (file) => changed.get(file) ?? tree.read(file),
    list: (dir) => tree.list(dir),
  };
  for (const edit of variant.edits) {
    const { file, text } = applyEditIn(current, edit, variant.id);
    changed.set(file, text);
  }
  return changed;
}

/**
 * Applies the variant to the repository copy at `root`; returns a function that puts every
 * changed file back as it was.
 */
export function applyVariantTo(root: string, variant: Variant): () => void {
  const tree = treeAt(root);
  const changed = applyVariant(variant, tree);
  const originals = new Map([...changed.keys()].map((file) => [file, tree.read(file)!]));
  for (const [file, text] of changed) writeFileSync(join(root, file), text);
  return () => {
    for (const [file, text] of originals) writeFileSync(join(root, file), text);
  };
}
