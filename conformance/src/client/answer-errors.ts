/**
 * The two ways an answer fails a check before any assertion of its own: it breaks the contract
 * (charged to one rule, charge.ts), or it does not come within the request deadline.
 */
import { ChargedFailure } from '../contract/charge.ts';
import type { ContractCharge, ContractLayer } from '../contract/spec-validator.ts';
import type { Exchange } from './exchange.ts';

/**
 * A response broke spec/openapi.yaml. It is charged to one rule (charge.ts): a documented rule
 * when it breaks what the service document requires, else the D-rule of the decided part it
 * breaks (spec/openapi.yaml `x-contract-layers`), which warns unless the run is strict. The
 * message names the operation, status and problem, each with its layer and rule.
 */
export class ContractViolation extends ChargedFailure {
  override name = 'ContractViolation';
  readonly layer: ContractLayer;

  constructor(
    readonly exchange: Exchange,
    charge: ContractCharge = { ruleId: '4-R2', layer: 'documented' },
  ) {
    const what =
      charge.layer === 'documented'
        ? `the response breaks what the service document requires (spec/openapi.yaml, documented rule ${charge.ruleId})`
        : `the response breaks only decided parts of spec/openapi.yaml (spec/DECISIONS.md ${charge.ruleId}; a deployment may decide otherwise: a warning unless --strict)`;
    super(charge.ruleId, new Error(`${what}:\n  - ${exchange.violations.join('\n  - ')}`), true);
    this.layer = charge.layer;
  }
}

/** No complete answer (status, headers and body) came within the request deadline. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(
    readonly exchange: Exchange,
    timeoutMs: number,
  ) {
    super(
      `no complete answer to ${exchange.request.method} ${exchange.request.url} within ${timeoutMs} ms (--request-timeout): every request must be answered, bad input included`,
    );
  }
}
