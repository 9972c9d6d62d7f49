import type { ChaosRule } from './rules.ts';

/**
 * The failed attempt a webhook chaos rule makes instead of reaching the endpoint, as the
 * dispatcher records any failure (D-34): a receiver's non-2xx answer, a refused connection, or
 * a time-out after the delivery deadline (D-30). It counts toward retries and pausing (D-35).
 */
export function injectedDelivery(
  rule: ChaosRule,
  timeoutMs: number,
): { statusCode: number | null; error: string } {
  const { delivery } = rule;
  if (delivery?.outcome === 'timeout')
    return { statusCode: null, error: `timed out after ${timeoutMs} ms (chaos rule ${rule.id})` };
  if (delivery?.status !== undefined)
    return {
      statusCode: delivery.status,
      error: `answered ${delivery.status} (chaos rule ${rule.id})`,
    };
  return { statusCode: null, error: `connection refused (chaos rule ${rule.id})` };
}
