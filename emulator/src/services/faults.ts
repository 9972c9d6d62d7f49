import { ApiError, type ErrorCode } from '../errors.ts';

/** The operations that create mail, which faults can be armed for. */
export const FAULTABLE = ['send', 'reply', 'forward'] as const;
export type FaultableOperation = (typeof FAULTABLE)[number];

/**
 * `error`: answer with the status, store and send nothing. `timeout-after-commit`: carry the
 * request out, then answer 504 as a gateway that gave up would: the ambiguous outcome after
 * which §4.3 rule 5 warns a retry may duplicate the email.
 */
export type FaultMode = 'error' | 'timeout-after-commit';

export interface Fault {
  id: string;
  operations: FaultableOperation[];
  mode: FaultMode;
  status: 500 | 502 | 503 | 504;
  remaining: number;
}

const CODE_FOR_STATUS: Record<Fault['status'], ErrorCode> = {
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** Faults armed through the control plane for client developers to rehearse failures. */
export class FaultInjector {
  private faults: Fault[] = [];

  arm(fault: Fault): Fault {
    this.faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }

  /** Takes one use of the first fault armed for this operation, if any. */
  take(operation: FaultableOperation): Fault | undefined {
    const fault = this.faults.find((f) => f.operations.includes(operation));
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return { ...fault };
  }
}

/** The error an armed fault answers with. */
export function faultError(fault: Fault): ApiError {
  if (fault.mode === 'timeout-after-commit') {
    return new ApiError(
      'gateway_timeout',
      'The request timed out. It may have been carried out (an injected fault).',
    );
  }
  return new ApiError(
    CODE_FOR_STATUS[fault.status],
    `An injected fault (status ${fault.status}); nothing was stored or sent.`,
  );
}
