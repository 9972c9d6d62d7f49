/**
 * A conformant variant: the emulator changed on ONE point the service document leaves open,
 * obeying every sentence of it (issue 14 item 5). Where a named mutant is a bug the suite must
 * catch, a variant is another allowed choice the suite must accept: `npm run variants` applies
 * each to a copy of the repository and asserts the suite passes it, warning only on the decided
 * rule (spec/DECISIONS.md) it departs from, and fails it only under `--strict`.
 *
 * Edits have the named mutants' shape and are applied by their code (applyMutant): each `find`
 * must occur exactly once in its file, so a variant that no longer applies is rewritten, never
 * silently skipped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyMutant, type NamedMutant } from '../mutants/named-mutant.ts';

/** One find/replace on a file under emulator/src/. */
export type VariantEdit = Pick<NamedMutant, 'file' | 'find' | 'replace'>;

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

/** The variant's edits applied to sources read by `read` (file path → text): the changed files. */
export function applyVariant(
  variant: Variant,
  read: (file: string) => string,
): Map<string, string> {
  const changed = new Map<string, string>();
  for (const edit of variant.edits) {
    const source = changed.get(edit.file) ?? read(edit.file);
    changed.set(edit.file, applyMutant(source, { id: variant.id, ...edit }));
  }
  return changed;
}

/**
 * Applies the variant to the repository copy at `root`; returns a function that puts every
 * changed file back as it was.
 */
export function applyVariantTo(root: string, variant: Variant): () => void {
  const originals = new Map<string, string>();
  const changed = applyVariant(variant, (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    originals.set(file, text);
    return text;
  });
  for (const [file, text] of changed) writeFileSync(join(root, file), text);
  return () => {
    for (const [file, text] of originals) writeFileSync(join(root, file), text);
  };
}
