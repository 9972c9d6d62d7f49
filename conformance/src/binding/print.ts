/**
 * A binding as `--print-binding` shows it: a binding file (spec/binding.schema.json) that can be
 * saved and given back with `--binding`, each entry followed by its source as a comment.
 */
import { Document, isMap, isPair, isScalar, type Node } from 'yaml';
import type { TargetBinding } from './target-binding.ts';

export function formatBinding(target: TargetBinding): string {
  const { binding, sources, sha256 } = target.resolved;
  const document = new Document(binding);
  document.commentBefore = ` Binding: ${target.note}\n SHA-256 ${sha256}`;
  if (isMap(document.contents)) {
    for (const section of document.contents.items) {
      if (!isPair(section) || !isScalar(section.key) || !isMap(section.value)) continue;
      for (const entry of section.value.items) {
        if (!isPair(entry) || !isScalar(entry.key)) continue;
        const source = sources[`/${String(section.key.value)}/${String(entry.key.value)}`];
        if (source === undefined) continue;
        const value = entry.value as Node | null;
        if (value !== null && (isScalar(value) || value.toJSON === undefined))
          value.comment = ` ${source}`;
        else (entry.key as Node).commentBefore = ` ${source}`;
      }
    }
  }
  return document.toString({ lineWidth: 0 });
}
