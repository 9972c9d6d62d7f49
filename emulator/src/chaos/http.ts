import type { MiddlewareHandler } from 'hono';
import type { Chaos } from './chaos.ts';
import { passesOn } from '../http/one-handler.ts';
import { operationFor } from './operations.ts';

/** The header naming the chaos rule that answered, so a test's log says why it failed. */
export const CHAOS_RULE_HEADER = 'X-Mailtwin-Chaos-Rule';

/**
 * Chaos for the API (`/openapi/v1`): before anything else looks at a request of an operation
 * of the contract, the first firing rule adds its latency and, if it has an error, answers it in
 * the Error shape (§7) instead. A path the contract lacks is left alone (no rule names it).
 */
export function chaosMiddleware(chaos: Chaos, prefix: string): MiddlewareHandler {
  const withRules: MiddlewareHandler = async (c, next) => {
    const path = c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length) : c.req.path;
    const operation = operationFor(chaos.operations, c.req.method, path);
    if (operation === undefined) return next();
    const rule = chaos.decide({ surface: 'http', operation });
    if (rule === undefined) return next();
    if (rule.latencyMs > 0) await chaos.sleep(rule.latencyMs);
    if (rule.error === undefined) return next();
    const { status, code, message } = rule.error;
    return c.json({ code, message }, status as 400, { [CHAOS_RULE_HEADER]: rule.id });
  };
  // No rule for the API (the usual case): passed on with the next handler's own promise, where
  // an async handler made one more of its own for every request (issue 31 item 1).
  // With rules too, it answers or passes on and never looks at the rest's answer.
  return passesOn((c, next) => (chaos.covers('http') ? withRules(c, next) : next()));
}
