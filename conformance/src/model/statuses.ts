/**
 * Status classes the service document fixes, apart from the exact statuses only our decisions
 * name (spec/DECISIONS.md D-12, D-20, D-21, D-44): a check asserts the class against the
 * documented rule and the exact code, separately, against the decided one.
 */
import { expectAt } from '../contract/charge.ts';

/** A success of any 2xx status, charged to `ruleId`. */
export function expectSuccess(ruleId: string, status: number, what: string): void {
  expectAt(ruleId, status >= 200 && status < 300, `${what}: a 2xx, got ${status}`).toBe(true);
}

/** A refusal: a 4xx, never a 2xx or a 5xx, charged to `ruleId`. */
export function expectRefusal(ruleId: string, status: number, what: string): void {
  expectAt(ruleId, status >= 400 && status < 500, `${what}: a 4xx, got ${status}`).toBe(true);
}
