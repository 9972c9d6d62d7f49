/**
 * Where a named mutant's or a conformant variant's edit applies, found so that a refactor that
 * keeps behaviour needs no catalogue edit (issue 29 item 2).
 *
 * An edit is `{ file, find, replace, within? }`. In a TypeScript file `find` is matched as a
 * sequence of tokens (the `typescript` package's scanner): whitespace, line breaks and comments
 * are ignored, a string literal matches whatever quotes it is written with, and what prettier adds
 * or drops as it reflows (a trailing comma, a last `;` before `}`, parentheses around a `return`
 * argument) may be present or not, so the text still matches after prettier reformats it. `within` names the function, method, class, variable or property the text lies in
 * (`dispatch`, or `SendService.dispatch`): only matches inside a declaration of that name count.
 * The match must be the only one (in the file, or within the named declaration); the replacement
 * is written over the matched tokens, less the leading and trailing whitespace `find` and
 * `replace` share.
 *
 * When the file no longer holds the named declaration (or, without `within`, no longer holds the
 * text), the edit follows the code: every file of the same source tree (`emulator/src`,
 * `conformance/src`) is searched, and the edit applies where the one match is.
 *
 * Fallback, so every entry written before keeps working: a `find` whose tokens do not match (it
 * starts or ends inside a token or a string) is looked for as exact text, as it always was; so is
 * any `find` in a file that is not TypeScript (`spec/openapi.yaml`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface AnchoredEdit {
  /** The file the edit was written for, relative to the repository root. */
  file: string;
  /** The text to replace: TypeScript tokens, or exact text (see above). */
  find: string;
  replace: string;
  /** The declaration (function, method, class, variable, property) the text lies in. */
  within?: string;
}

/** A find that no longer applies, or applies in more than one place. */
export class StaleEditError extends Error {
  override name = 'StaleEditError';
}

/** Files by path relative to a root; `undefined` for a file that does not exist. */
export interface SourceTree {
  read(file: string): string | undefined;
  /** Every `.ts` source (tests excluded) under `dir`, relative to the root. */
  list(dir: string): string[];
}

/** The repository (or a copy of it) at `root`, read from disk. */
export function treeAt(root: string): SourceTree {
  return {
    read: (file) => {
      const path = join(root, file);
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    },
    list: (dir) => {
      const base = join(root, dir);
      if (!existsSync(base)) return [];
      return (readdirSync(base, { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
        .map((f) => `${dir}/${f.split('\\').join('/')}`)
        .sort();
    },
  };
}

/** Where an edit applies: the file (maybe not the one named), the span and its new text. */
export interface Located {
  file: string;
  start: number;
  end: number;
  replacement: string;
  /** How the text was found: as tokens, or as exact text. */
  by: 'tokens' | 'text';
}

/** `source` with `edit` applied, looked for in this one source only. */
export function applyEdit(source: string, edit: AnchoredEdit, label = edit.file): string {
  refuseNoChange(edit, label);
  const found = locateIn(source, edit, label);
  if (found.kind !== 'one') throw staleError(found, edit, label, edit.file);
  return splice(source, found.at);
}

/**
 * Finds where `edit` applies in `tree`: in its file, or where the code it anchors to moved.
 * Throws StaleEditError when it applies nowhere or in more than one place.
 */
export function locateEdit(tree: SourceTree, edit: AnchoredEdit, label = edit.file): Located {
  refuseNoChange(edit, label);
  const source = tree.read(edit.file);
  let first: Outcome | undefined;
  if (source !== undefined) {
    first = locateIn(source, edit, label);
    if (first.kind === 'one') return { file: edit.file, ...first.at };
    // The named declaration is still here, or the text is here more than once: the edit is
    // stale or ambiguous in place, and looking elsewhere would only hide that.
    if (first.kind === 'many' || (first.kind === 'none' && (first.scopes ?? 0) > 0))
      throw staleError(first, edit, label, edit.file);
  }
  const moved = searchTree(tree, edit, label);
  if (moved !== undefined) return moved;
  if (source === undefined)
    throw new StaleEditError(
      `${label}: ${edit.file} does not exist, and no file of ${treeOf(edit.file) ?? 'its tree'} holds ${describe(edit)}`,
    );
  throw staleError(first!, edit, label, edit.file);
}

/** `edit` applied in `tree`: the file it changed and that file's new text. */
export function applyEditIn(
  tree: SourceTree,
  edit: AnchoredEdit,
  label = edit.file,
): { file: string; text: string } {
  const at = locateEdit(tree, edit, label);
  return { file: at.file, text: splice(tree.read(at.file)!, at) };
}

function splice(source: string, at: Omit<Located, 'file'>): string {
  return source.slice(0, at.start) + at.replacement + source.slice(at.end);
}

function refuseNoChange(edit: AnchoredEdit, label: string): void {
  if (edit.find === edit.replace)
    throw new StaleEditError(`${label}: replace is the same as find, nothing would change`);
}

type Outcome =
  | { kind: 'one'; at: Omit<Located, 'file'> }
  | { kind: 'many'; count: number; by: Located['by'] }
  /** `scopes`: how many declarations named `within` the source holds (none given: undefined). */
  | { kind: 'none'; scopes: number | undefined };

function describe(edit: AnchoredEdit): string {
  return `${JSON.stringify(edit.find)}${edit.within === undefined ? '' : ` within ${edit.within}`}`;
}

function staleError(outcome: Outcome, edit: AnchoredEdit, label: string, file: string) {
  if (outcome.kind === 'many')
    return new StaleEditError(
      `${label}: ${describe(edit)} occurs more than once (${outcome.count} times) in ${file}; give more context, or name the declaration it lies in with \`within\``,
    );
  if (edit.within !== undefined && outcome.kind === 'none' && outcome.scopes === 0)
    return new StaleEditError(`${label}: ${file} no longer declares ${edit.within}`);
  return new StaleEditError(`${label}: ${file} no longer contains ${describe(edit)}`);
}

/** The source tree a file belongs to (`emulator/src`), where moved code is looked for. */
function treeOf(file: string): string | undefined {
  return /^(emulator|conformance)\/src\//.exec(file)?.[0].slice(0, -1);
}

function searchTree(tree: SourceTree, edit: AnchoredEdit, label: string): Located | undefined {
  const dir = treeOf(edit.file);
  if (dir === undefined) return undefined;
  const hits: Located[] = [];
  let many = 0;
  for (const file of tree.list(dir)) {
    if (file === edit.file) continue;
    const source = tree.read(file);
    if (source === undefined) continue;
    // Cheap test first: a file that does not name the declaration cannot hold it.
    if (edit.within !== undefined && !source.includes(lastName(edit.within))) continue;
    const outcome = locateIn(source, edit, label);
    if (outcome.kind === 'one') hits.push({ file, ...outcome.at });
    if (outcome.kind === 'many') many += outcome.count;
  }
  if (hits.length === 1 && many === 0) return hits[0];
  if (hits.length + many > 1)
    throw new StaleEditError(
      `${label}: ${edit.file} no longer holds ${describe(edit)}, and ${dir} holds it ${hits.length + many} times (${hits.map((h) => h.file).join(', ')}); name the declaration with \`within\``,
    );
  return undefined;
}

const lastName = (within: string) => within.split('.').pop()!;

/** The one place `edit` applies in `source`, or why there is none. */
function locateIn(source: string, edit: AnchoredEdit, label: string): Outcome {
  const typescript = /\.[cm]?tsx?$/.test(edit.file);
  const scopes =
    edit.within === undefined ? undefined : typescript ? declarationSpans(source, edit.within) : [];
  if (scopes !== undefined && scopes.length === 0) return { kind: 'none', scopes: 0 };
  const inScope = (start: number, end: number) =>
    scopes === undefined || scopes.some(([s, e]) => start >= s && end <= e);

  if (typescript) {
    const find = tokenize(edit.find);
    if (find.clean && find.tokens.length > 0) {
      const spans = tokenMatches(tokenize(source).tokens, find.tokens).filter(([s, e]) =>
        inScope(s, e),
      );
      if (spans.length > 1) return { kind: 'many', count: spans.length, by: 'tokens' };
      if (spans.length === 1) {
        let [start, end] = spans[0]!;
        // The whitespace and comments `find` has before its first token and after its last:
        // where the file has the same, they are replaced too (exactly what an exact-text match
        // did); elsewhere they are left as the file has them, and dropped from `replace` where
        // it shares them.
        const lead = edit.find.slice(0, find.tokens[0]!.start);
        const trail = edit.find.slice(find.tokens.at(-1)!.end);
        let replacement = edit.replace;
        if (start >= lead.length && source.slice(start - lead.length, start) === lead)
          start -= lead.length;
        else if (replacement.startsWith(lead)) replacement = replacement.slice(lead.length);
        if (source.startsWith(trail, end)) end += trail.length;
        else if (replacement.endsWith(trail))
          replacement = replacement.slice(0, replacement.length - trail.length);
        if (sameTokens(edit.find, edit.replace))
          throw new StaleEditError(
            `${label}: replace differs from find only in layout or comments, nothing would change`,
          );
        return { kind: 'one', at: { start, end, replacement, by: 'tokens' } };
      }
    }
  }
  // Exact text: a find that starts or ends inside a token, or a file that is not TypeScript.
  const starts: number[] = [];
  for (let at = source.indexOf(edit.find); at !== -1; at = source.indexOf(edit.find, at + 1))
    if (inScope(at, at + edit.find.length)) starts.push(at);
  if (starts.length > 1) return { kind: 'many', count: starts.length, by: 'text' };
  if (starts.length === 1)
    return {
      kind: 'one',
      at: {
        start: starts[0]!,
        end: starts[0]! + edit.find.length,
        replacement: edit.replace,
        by: 'text',
      },
    };
  return { kind: 'none', scopes: scopes?.length };
}

function sameTokens(a: string, b: string): boolean {
  const ta = tokenize(a);
  const tb = tokenize(b);
  if (!ta.clean || !tb.clean) return false;
  const keys = (t: Token[]) => t.filter((x) => !x.optional).map((x) => x.key);
  return keys(ta.tokens).join('\u0000') === keys(tb.tokens).join('\u0000');
}

interface Token {
  kind: ts.SyntaxKind;
  /** What must be equal for two tokens to match: kind and text (a string's value). */
  key: string;
  start: number;
  end: number;
  /** Added or dropped by prettier as it reflows (see markOptional). */
  optional: boolean;
  /** For an optional parenthesis: the index of the other one of its pair. */
  partner?: number;
}

/**
 * Marks what prettier adds or drops as it reflows: a comma before a closing bracket (or ending a
 * find), a semicolon before `}`, and the parentheses it puts around the whole of a `return` or
 * `throw` argument that no longer fits on the line.
 */
function markOptional(tokens: Token[]): void {
  const K = ts.SyntaxKind;
  const open: number[] = [];
  for (const [i, token] of tokens.entries()) {
    const next = tokens[i + 1]?.kind;
    if (token.kind === K.CommaToken) token.optional = next === undefined || CLOSERS.has(next);
    if (token.kind === K.SemicolonToken) token.optional = next === K.CloseBraceToken;
    if (token.kind === K.OpenParenToken) open.push(i);
    if (token.kind === K.CloseParenToken && open.length > 0) {
      const start = open.pop()!;
      const before = tokens[start - 1]?.kind;
      if (
        (before === K.ReturnKeyword || before === K.ThrowKeyword) &&
        (next === undefined || next === K.SemicolonToken || next === K.CloseBraceToken)
      ) {
        tokens[start]!.optional = token.optional = true;
        tokens[start]!.partner = i;
        token.partner = start;
      }
    }
  }
}

const tokenCache = new Map<string, { tokens: Token[]; clean: boolean }>();

/** The tokens of `text`; `clean` is false when the scanner reported an error (a cut token). */
function tokenize(text: string): { tokens: Token[]; clean: boolean } {
  const cached = tokenCache.get(text);
  if (cached !== undefined) return cached;
  let clean = true;
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    true,
    ts.LanguageVariant.Standard,
    text,
    () => (clean = false),
  );
  const tokens: Token[] = [];
  const braces: ('brace' | 'template')[] = [];
  let previous: ts.SyntaxKind | undefined;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    switch (kind) {
      case ts.SyntaxKind.OpenBraceToken:
        braces.push('brace');
        break;
      case ts.SyntaxKind.TemplateHead:
        braces.push('template');
        break;
      case ts.SyntaxKind.CloseBraceToken:
        if (braces.at(-1) === 'template') {
          kind = scanner.reScanTemplateToken(false);
          if (kind === ts.SyntaxKind.TemplateTail) braces.pop();
        } else braces.pop();
        break;
      case ts.SyntaxKind.SlashToken:
      case ts.SyntaxKind.SlashEqualsToken:
        if (previous === undefined || !ENDS_AN_OPERAND.has(previous))
          kind = scanner.reScanSlashToken();
        break;
      case ts.SyntaxKind.GreaterThanToken:
        kind = scanner.reScanGreaterToken();
        break;
    }
    const valued =
      kind === ts.SyntaxKind.StringLiteral ||
      kind === ts.SyntaxKind.NumericLiteral ||
      kind === ts.SyntaxKind.BigIntLiteral;
    tokens.push({
      kind,
      key: `${kind}:${valued ? scanner.getTokenValue() : scanner.getTokenText()}`,
      start: scanner.getTokenStart(),
      end: scanner.getTokenEnd(),
      optional: false,
    });
    previous = kind;
  }
  markOptional(tokens);
  const result = { tokens, clean };
  tokenCache.set(text, result);
  return result;
}

/** After these a `/` divides; after anything else it starts a regular expression. */
const ENDS_AN_OPERAND = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
]);

const CLOSERS = new Set([
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.GreaterThanToken,
]);

/**
 * The [start, end) text spans of `source` whose tokens are `find`'s, optional tokens aside. A
 * match that skips one parenthesis of a pair and not the other is none: writing over it would
 * leave the parentheses unbalanced.
 */
function tokenMatches(source: Token[], find: Token[]): [number, number][] {
  const spans: [number, number][] = [];
  const first = find.findIndex((t) => !t.optional);
  if (first === -1) return spans;
  for (let i = 0; i < source.length; i += 1) {
    if (source[i]!.key !== find[first]!.key) continue;
    let j = i;
    let k = first;
    let last = -1;
    const skipped: number[] = [];
    while (k < find.length) {
      if (j < source.length && source[j]!.key === find[k]!.key) {
        last = j;
        j += 1;
        k += 1;
      } else if (find[k]!.optional) k += 1;
      else if (j < source.length && source[j]!.optional) skipped.push(j++);
      else break;
    }
    if (k < find.length) continue;
    const torn = skipped.some((at) => {
      const partner = source[at]!.partner;
      return partner !== undefined && (partner < i || partner > last);
    });
    if (!torn) spans.push([source[i]!.start, source[last]!.end]);
  }
  return spans;
}

/** The spans of every declaration named `within` (`name` or `Outer.name`). */
function declarationSpans(source: string, within: string): [number, number][] {
  const file = ts.createSourceFile('anchor.ts', source, ts.ScriptTarget.Latest, true);
  const wanted = within.split('.');
  const spans: [number, number][] = [];
  const visit = (node: ts.Node, names: string[]) => {
    const name = declarationName(node);
    const path = name === undefined ? names : [...names, name];
    if (
      name !== undefined &&
      path.length >= wanted.length &&
      path.slice(-wanted.length).every((n, i) => n === wanted[i])
    )
      spans.push([node.getStart(file), node.end]);
    ts.forEachChild(node, (child) => visit(child, path));
  };
  visit(file, []);
  return spans;
}

function declarationName(node: ts.Node): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isClassExpression(node) ||
    ts.isVariableDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isPropertySignature(node) ||
    ts.isMethodSignature(node)
  ) {
    const name = node.name;
    if (name === undefined) return undefined;
    if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))
      return name.text;
  }
  return undefined;
}
