import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { ApiError } from '../../errors.ts';
import {
  FAULTABLE,
  type Fault,
  type FaultableOperation,
  type FaultMode,
} from '../../services/faults.ts';
import { readControlBody } from './body.ts';

interface ArmFaultBody {
  operations?: FaultableOperation[];
  count?: number;
  mode: FaultMode;
  status?: Fault['status'];
}

/** The status `error` answers with when none is chosen: the usual "try again later". */
const DEFAULT_ERROR_STATUS = 503;

/** The shape is the schema's (ArmFaultRequest); the one rule across fields is checked here. */
function faultFrom(body: ArmFaultBody, id: string): Fault {
  if (body.mode === 'timeout-after-commit' && body.status !== undefined) {
    throw new ApiError(
      'invalid_field',
      'status applies only to mode error; timeout-after-commit always answers 504.',
      'status',
    );
  }
  return {
    id,
    operations: body.operations ?? [...FAULTABLE],
    mode: body.mode,
    status: body.mode === 'error' ? (body.status ?? DEFAULT_ERROR_STATUS) : 504,
    remaining: body.count ?? 1,
  };
}

/**
 * Injected failures of send, reply and forward: `/faults`. Client developers rehearse what
 * §4.3 rule 5 warns of (a retry after an ambiguous timeout may duplicate the email) and plain
 * 5xx answers, without waiting for a real outage.
 */
export function controlFaultRoutes({ deps, faults }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(faults.list()));

  app.post('/', async (c) => {
    const body = await readControlBody<ArmFaultBody>(c, 'ArmFaultRequest');
    return c.json(faults.arm(faultFrom(body, deps.ids.prefixed('flt'))), 201);
  });

  app.delete('/', (c) => {
    faults.clear();
    return c.body(null, 204);
  });

  return app;
}
