/**
 * A refactor that keeps behaviour needs no catalogue edit (issue 29 item 2): on a copy of the
 * emulator's sources reformatted by prettier with another line width, with every pinned file
 * moved to another path, and with a method moved to a file of its own, every named mutant and
 * every conformant variant still applies exactly once, and leaves TypeScript that parses.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateEdit, treeAt } from '../mutants/anchor.ts';
import { CATALOGUE } from '../mutants/catalogue.ts';
import { mutateTree } from '../mutants/named-mutant.ts';
import { VARIANTS } from '../variants/catalogue.ts';
import { applyVariant } from '../variants/variant.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EDITS = [
  ...CATALOGUE.map((m) => ({ ...m, label: m.id })),
  ...VARIANTS.flatMap((v) => v.edits.map((e) => ({ ...e, label: v.id }))),
];
/** The files the edits land in today: where each was written, or where its code moved since. */
const PINNED = [
  ...new Set([
    ...CATALOGUE.map((m) => mutateTree(ROOT, m).file),
    ...VARIANTS.flatMap((v) => [...applyVariant(v, treeAt(ROOT)).keys()]),
  ]),
].filter((f) => f.endsWith('.ts'));

/** A copy of the sources the catalogues edit (emulator/src without its tests, the spec). */
function copySources(): string {
  const root = mkdtempSync(join(tmpdir(), 'mailtwin-refactor-'));
  cpSync(join(ROOT, 'emulator/src'), join(root, 'emulator/src'), {
    recursive: true,
    filter: (source) => !source.endsWith('.test.ts'),
  });
  mkdirSync(join(root, 'spec'));
  cpSync(join(ROOT, 'spec/openapi.yaml'), join(root, 'spec/openapi.yaml'));
  return root;
}

/** Syntax errors of a TypeScript text (no type check: a mutant may well not type-check). */
function syntaxErrors(text: string, file: string): string[] {
  const parsed = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  // The parser's own diagnostics (what `tsc` reports as syntax errors), without a program.
  const { parseDiagnostics } = parsed as unknown as { parseDiagnostics: ts.Diagnostic[] };
  return parseDiagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** Every mutant applies in `root` where `fileOf` says, and (`parse`) what it leaves still parses. */
function expectCatalogueApplies(
  root: string,
  fileOf: (file: string) => string,
  parse: boolean,
): void {
  for (const mutant of CATALOGUE) {
    const applied = mutateTree(root, mutant);
    // Where it lands in the sources as they are (code may have moved since it was written).
    expect(applied.file, mutant.id).toBe(fileOf(mutateTree(ROOT, mutant).file));
    expect(applied.mutated, mutant.id).not.toBe(applied.original);
    if (parse && applied.file.endsWith('.ts'))
      expect(syntaxErrors(applied.mutated, applied.file), mutant.id).toEqual([]);
  }
  for (const variant of VARIANTS) {
    const changed = applyVariant(variant, treeAt(root));
    expect([...changed.keys()].sort(), variant.id).toEqual(
      [...applyVariant(variant, treeAt(ROOT)).keys()].map(fileOf).sort(),
    );
    for (const [file, text] of parse ? changed : [])
      expect(syntaxErrors(text, file), `${variant.id} ${file}`).toEqual([]);
  }
}

describe('the catalogues after a behaviour-preserving refactor', () => {
  let root: string;
  beforeAll(async () => {
    root = copySources();
    // Another line width: prettier re-wraps calls, arguments, chains and adds trailing commas.
    const config = (await prettier.resolveConfig(join(ROOT, PINNED[0]!))) ?? {};
    let reflowed = 0;
    for (const file of PINNED) {
      const path = join(root, file);
      const before = readFileSync(path, 'utf8');
      const after = await prettier.format(before, { ...config, printWidth: 50, filepath: path });
      if (after !== before) reflowed += 1;
      writeFileSync(path, after);
    }
    expect(reflowed, 'files prettier changed').toBeGreaterThan(PINNED.length / 2);
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('apply every named mutant and variant to the sources reformatted with printWidth 50', () => {
    expect(PINNED.length).toBeGreaterThan(20);
    expectCatalogueApplies(root, (file) => file, true);
  }, 60_000);

  it('apply every named mutant and variant where each pinned file moved to', () => {
    const moved = (file: string) =>
      file.endsWith('.ts') && file.startsWith('emulator/src/')
        ? `emulator/src/moved/${dirname(file).split('/').slice(2).join('-') || 'root'}-${basename(file)}`
        : file;
    mkdirSync(join(root, 'emulator/src/moved'));
    for (const file of PINNED) {
      writeFileSync(join(root, moved(file)), readFileSync(join(root, file)));
      unlinkSync(join(root, file));
    }
    try {
      expectCatalogueApplies(root, moved, false);
    } finally {
      for (const file of PINNED) {
        writeFileSync(join(root, file), readFileSync(join(root, moved(file))));
        unlinkSync(join(root, moved(file)));
      }
    }
  }, 60_000);

  it('follow a function, method or constant anchored by name into another file', () => {
    const anchored = EDITS.filter((e) => e.within !== undefined && e.file.endsWith('.ts'));
    expect(anchored.length).toBeGreaterThan(0);
    for (const edit of anchored) {
      const copy = copySources();
      try {
        const path = join(copy, edit.file);
        const source = readFileSync(path, 'utf8');
        const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
        const name = edit.within!.split('.').pop()!;
        // The method, function or `const` statement declaring it, cut out whole.
        let span: { start: number; end: number; method: boolean } | undefined;
        const visit = (node: ts.Node): void => {
          const declares =
            ((ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) &&
              node.name?.getText(file) === name) ||
            (ts.isVariableStatement(node) &&
              node.declarationList.declarations.some((d) => d.name.getText(file) === name));
          if (span === undefined && declares)
            span = {
              start: node.getStart(file),
              end: node.end,
              method: ts.isMethodDeclaration(node),
            };
          ts.forEachChild(node, visit);
        };
        visit(file);
        expect(span, `${edit.label}: ${edit.file} declares ${name}`).toBeDefined();
        const { start, end, method } = span!;
        const cut = source.slice(start, end);
        writeFileSync(path, source.slice(0, start) + source.slice(end));
        const target = `${dirname(edit.file)}/extracted-${name}.ts`;
        writeFileSync(
          join(copy, target),
          method ? `export class Extracted {\n  ${cut}\n}\n` : `${cut}\n`,
        );
        const at = locateEdit(treeAt(copy), edit, edit.label);
        expect(at.file, edit.label).toBe(target);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
  }, 60_000);
});
