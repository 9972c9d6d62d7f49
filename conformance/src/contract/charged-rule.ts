/**
 * The one rule a response that breaks the contract is charged to (GUIDE "One assertion, one
 * rule"): the nearest mark of the documented layer (`x-documented`) for what the service
 * document requires, else the nearest D-row of the decided layer (`x-decided`) that
 * conformance/rules.yaml asserts. A status the contract does not list is charged by the marks of
 * the statuses of its class.
 */
import {
  deref,
  marksAlong,
  marksOf,
  pickRule,
  resolvePointer,
  type Json,
} from './documented-contract.ts';
import { responsesPointer, type OperationMatch } from './operation-table.ts';
import type { Finding } from './response-findings.ts';

/** Whether an id is a rule of that source in conformance/rules.yaml (a charge prefers one). */
export type IsRule = (id: string, source: 'documented' | 'decided') => boolean;

/** The documented rule a finding of the documented layer is charged to. */
export function documentedRule(spec: Json, finding: Finding, isRules: IsRule): string {
  const isRule = (id: string) => isRules(id, 'documented');
  const fallback = finding.status >= 400 ? '7-R1' : '4-R2';
  if (finding.kind === 'operation') return '4-R3';
  const candidates: string[] = [];
  if (finding.kind === 'body' && finding.schemaPointer !== undefined) {
    candidates.push(
      ...marksAlong(
        spec,
        finding.schemaPointer,
        finding.instancePath ?? '',
        finding.keyword ?? '',
        finding.params,
      ).documented,
    );
  }
  if (finding.responsePointer !== undefined) {
    candidates.push(...marksOf(resolvePointer(spec, finding.responsePointer)).documented);
  }
  if (finding.kind === 'status' && finding.match !== undefined) {
    // A status the document does not allow: the documented statuses of its class say why.
    const responses = responsesOf(spec, finding.match);
    for (const [status, response] of Object.entries(responses)) {
      if (status[0] === String(finding.status)[0])
        candidates.push(...marksOf(deref(spec, response)).documented);
    }
  }
  return pickRule(candidates, isRule, fallback);
}

/** The decided rule a finding of the whole contract (the documented one passed) is charged to. */
export function decidedRule(spec: Json, finding: Finding, isRules: IsRule): string {
  const isRule = (id: string) => isRules(id, 'decided');
  const candidates: string[] = [];
  if (finding.kind === 'body' && finding.schemaPointer !== undefined) {
    candidates.push(
      ...marksAlong(
        spec,
        finding.schemaPointer,
        finding.instancePath ?? '',
        finding.keyword ?? '',
        finding.params,
      ).decided,
    );
  }
  if (finding.responsePointer !== undefined) {
    candidates.push(...marksOf(resolvePointer(spec, finding.responsePointer)).decided);
  }
  if (finding.kind === 'status' && finding.match !== undefined) {
    // A status of a class whose statuses are decided: the row they share comes first (D-12
    // for errors), then each one's own.
    const rows = Object.entries(responsesOf(spec, finding.match))
      .filter(([status]) => status[0] === String(finding.status)[0])
      .map(([, response]) => marksOf(deref(spec, response)).decided);
    const shared =
      rows.length === 0 ? [] : rows[0]!.filter((r) => rows.every((x) => x.includes(r)));
    candidates.push(...shared.filter(isRule), ...rows.flat());
  }
  return pickRule(candidates, isRule, 'D-12');
}

/** The responses the spec documents for an operation. */
function responsesOf(spec: Json, match: OperationMatch): Json {
  return (resolvePointer(spec, responsesPointer(match)) ?? {}) as Json;
}
