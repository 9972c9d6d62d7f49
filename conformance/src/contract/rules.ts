import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { packagePath } from '../package-root.ts';

/** Where a rule comes from: the service document itself, or a choice of spec/DECISIONS.md. */
export type RuleSource = 'documented' | 'decided';

/** One normative statement the suite can verify (conformance/rules.yaml). */
export interface Rule {
  id: string;
  section: string;
  sentence: string;
  source: RuleSource;
  /** Why no check can verify it over the API (counted apart from coverage), when that is so. */
  untestable?: string;
}

export const RULES_PATH = packagePath('conformance/rules.yaml');

const ID_PATTERN = /^(?:\d+(?:\.\d+)?-R\d+|D-\d+)$/;

/** Reads and checks conformance/rules.yaml: unique, well-formed ids and a known source. */
export function loadRules(path: string = RULES_PATH): Rule[] {
  const document = parse(readFileSync(path, 'utf8')) as { rules?: unknown };
  if (!Array.isArray(document.rules)) throw new Error(`${path}: expected a top-level "rules" list`);
  const seen = new Set<string>();
  return document.rules.map((entry: Record<string, unknown>, index) => {
    const { id, section, sentence, source, untestable } = entry;
    const where = `${path}: rule #${index + 1}`;
    if (typeof id !== 'string' || !ID_PATTERN.test(id))
      throw new Error(`${where}: bad id ${String(id)}`);
    if (seen.has(id)) throw new Error(`${where}: duplicate id ${id}`);
    seen.add(id);
    if (
      typeof section !== 'string' ||
      section.length === 0 ||
      typeof sentence !== 'string' ||
      sentence.length === 0
    ) {
      throw new Error(`${where} (${id}): section and sentence must be non-empty strings`);
    }
    if (source !== 'documented' && source !== 'decided') {
      throw new Error(`${where} (${id}): source must be documented or decided`);
    }
    if (untestable !== undefined && (typeof untestable !== 'string' || untestable.trim() === '')) {
      throw new Error(`${where} (${id}): untestable must give a reason`);
    }
    return { id, section, sentence, source, ...(untestable === undefined ? {} : { untestable }) };
  });
}

/** Rules by id, loaded once per process. */
let byId: Map<string, Rule> | undefined;
export function ruleById(id: string): Rule | undefined {
  byId ??= new Map(loadRules().map((rule) => [rule.id, rule]));
  return byId.get(id);
}
