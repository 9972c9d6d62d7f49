import { ApiError } from '../errors.ts';
import type { Operation } from './operations.ts';

/** Where a chaos rule acts: the API's operations, the SMTP ingress, or webhook deliveries. */
export type ChaosSurface = 'http' | 'smtp' | 'webhook';
/** The SMTP exchange's steps a rule can fail: the greeting, MAIL FROM, RCPT TO, DATA. */
export const SMTP_STAGES = ['connect', 'mail', 'rcpt', 'data'] as const;
export type SmtpStage = (typeof SMTP_STAGES)[number];
export type WebhookEvent = 'email.received' | 'webhook.test';

/** An HTTP answer in the Error shape (§7): `{code, message}` with `status`. */
export interface HttpChaosError {
  status: number;
  code: string;
  message: string;
}

/** An SMTP reply (RFC 5321 §4.2): a 4xx or 5xx code and its text. */
export interface SmtpChaosReply {
  code: number;
  text: string;
}

/**
 * A webhook attempt that fails without reaching the receiver: `failed` as a receiver answering
 * `status` (or, without one, a refused connection), `timeout` as one that never answers (D-30).
 */
export interface WebhookChaosDelivery {
  outcome: 'failed' | 'timeout';
  status?: number;
}

/** One armed rule, as `GET /chaos` lists it. */
export interface ChaosRule {
  id: string;
  surface: ChaosSurface;
  /** http: the operationId; absent with `method`/`path`, or for every operation. */
  operation?: string;
  method?: string;
  path?: string;
  /** smtp: the stage; absent for every stage. */
  stage?: SmtpStage;
  /** webhook: one webhook and/or one event; absent for every one. */
  webhookId?: string;
  event?: WebhookEvent;
  probability: number;
  latencyMs: number;
  error?: HttpChaosError;
  reply?: SmtpChaosReply;
  delivery?: WebhookChaosDelivery;
}

/** The body of `PUT /chaos`, shaped by spec/control.yaml's ChaosRuleSetRequest. */
export interface ChaosRuleSetInput {
  seed?: number;
  rules: ChaosRuleInput[];
}

export type ChaosRuleInput = Omit<
  ChaosRule,
  'id' | 'probability' | 'latencyMs' | 'error' | 'reply'
> & {
  probability?: number;
  latencyMs?: number;
  error?: { status: number; code?: string; message?: string };
  reply?: { code: number; text?: string };
};

/** The code an HTTP rule answers when it names none: the catalogue's code for that status. */
const CODE_FOR_STATUS: Record<number, string> = {
  400: 'bad_request',
  404: 'not_found',
  408: 'request_timeout',
  413: 'request_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** The fields each surface takes beyond the common ones; any other is refused. */
const FIELDS: Record<ChaosSurface, readonly string[]> = {
  http: ['operation', 'method', 'path', 'error'],
  smtp: ['stage', 'reply'],
  webhook: ['webhookId', 'event', 'delivery'],
};
const SURFACE_FIELDS = new Set(Object.values(FIELDS).flat());

/**
 * Checks the rules beyond their shape (the schema's) and fills in the defaults: a field of
 * another surface, an operation, path or method the contract lacks, an error status with no
 * code of its own are 400 `invalid_field` or `missing_field` naming `rules[i].field`.
 */
export function parseRules(
  inputs: readonly ChaosRuleInput[],
  operations: readonly Operation[],
  newId: () => string,
): ChaosRule[] {
  return inputs.map((input, index) => parseRule(input, `rules[${index}]`, operations, newId()));
}

function parseRule(
  input: ChaosRuleInput,
  at: string,
  operations: readonly Operation[],
  id: string,
): ChaosRule {
  const { surface } = input;
  for (const field of Object.keys(input)) {
    if (SURFACE_FIELDS.has(field) && !FIELDS[surface].includes(field))
      throw new ApiError(
        'invalid_field',
        `${field} does not apply to ${surface} rules.`,
        `${at}.${field}`,
      );
  }
  const rule: ChaosRule = {
    id,
    surface,
    probability: input.probability ?? 1,
    latencyMs: input.latencyMs ?? 0,
  };
  if (surface === 'http') Object.assign(rule, httpMatch(input, at, operations));
  if (input.stage !== undefined) rule.stage = input.stage;
  if (input.webhookId !== undefined) rule.webhookId = input.webhookId;
  if (input.event !== undefined) rule.event = input.event;
  if (input.error !== undefined) {
    const { status, code, message } = input.error;
    const chosen = code ?? CODE_FOR_STATUS[status];
    if (chosen === undefined)
      throw new ApiError('missing_field', `Give a code for status ${status}.`, `${at}.error.code`);
    rule.error = {
      status,
      code: chosen,
      message: message ?? `An injected failure (chaos rule ${id}).`,
    };
  }
  if (input.reply !== undefined) {
    const { code, text } = input.reply;
    rule.reply = {
      code,
      text: text ?? `${Math.floor(code / 100)}.3.0 Injected failure (chaos rule ${id})`,
    };
  }
  if (input.delivery !== undefined) {
    if (input.delivery.outcome === 'timeout' && input.delivery.status !== undefined)
      throw new ApiError(
        'invalid_field',
        'status applies only to outcome failed; a timed-out attempt has no answer.',
        `${at}.delivery.status`,
      );
    rule.delivery = { ...input.delivery };
  }
  return rule;
}

/** An HTTP rule names an operationId, or a method and/or a path of the contract, or nothing. */
function httpMatch(
  input: ChaosRuleInput,
  at: string,
  operations: readonly Operation[],
): Pick<ChaosRule, 'operation' | 'method' | 'path'> {
  const { operation, method, path } = input;
  if (operation !== undefined) {
    if (method !== undefined || path !== undefined)
      throw new ApiError(
        'invalid_field',
        'Name an operation by operationId or by method and path, not both.',
        `${at}.${method !== undefined ? 'method' : 'path'}`,
      );
    if (!operations.some((o) => o.operationId === operation))
      throw new ApiError(
        'invalid_field',
        `No operation ${operation} in the API; one of ${operations.map((o) => o.operationId).join(', ')}.`,
        `${at}.operation`,
      );
    return { operation };
  }
  if (path !== undefined && !operations.some((o) => o.path === path))
    throw new ApiError(
      'invalid_field',
      `No path ${path} in the API (a template of spec/openapi.yaml, as /emails/{emailId}).`,
      `${at}.path`,
    );
  if (
    method !== undefined &&
    !operations.some((o) => o.method === method && (path === undefined || o.path === path))
  )
    throw new ApiError(
      'invalid_field',
      `No operation ${method} ${path ?? ''} in the API.`.replace(' .', '.'),
      `${at}.method`,
    );
  return { ...(method === undefined ? {} : { method }), ...(path === undefined ? {} : { path }) };
}
