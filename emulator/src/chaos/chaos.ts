import { randomInt } from 'node:crypto';
import type { Operation } from './operations.ts';
import { ruleSeed, seededRandom, type Random } from './random.ts';
import {
  parseRules,
  type ChaosRule,
  type ChaosRuleSetInput,
  type SmtpStage,
  type WebhookEvent,
} from './rules.ts';

/** What a rule is asked about: one API request, one SMTP step, one webhook attempt. */
export type ChaosTarget =
  | { surface: 'http'; operation: Operation }
  | { surface: 'smtp'; stage: SmtpStage }
  | { surface: 'webhook'; webhookId: string; event: string };

/** A rule as listed: how often it was asked (matched) and how often it acted (fired). */
export interface ChaosRuleView extends ChaosRule {
  matched: number;
  fired: number;
}

/** `GET /chaos`: the seed (to replay) and the rules in the order they are tried. */
export interface ChaosState {
  seed: number;
  rules: ChaosRuleView[];
}

/** How the emulator waits for a rule's latency; tests inject one that moves a clock. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

interface Armed {
  rule: ChaosRule;
  random: Random;
  matched: number;
  fired: number;
}

export interface ChaosOptions {
  /** The contract's operations, which HTTP rules name. */
  operations: readonly Operation[];
  newId: () => string;
  sleep?: Sleep;
  /** The seed of a set armed without one; shown by `GET /chaos` so the run replays. */
  newSeed?: () => number;
}

/**
 * Chaos rules in the LocalStack model: an ordered list, each matching an API operation, an SMTP
 * stage or a webhook delivery, acting with a probability by adding latency and/or failing. The
 * first matching rule that fires decides; each rule draws from its own stream of a seeded
 * generator, so the same seed and the same sequence of requests give the same outcomes.
 */
export class Chaos {
  private seed: number;
  private armed: Armed[] = [];
  readonly sleep: Sleep;
  private readonly newSeed: () => number;

  /** The contract's operations, which HTTP rules name. */
  readonly operations: readonly Operation[];

  constructor(private readonly options: ChaosOptions) {
    this.operations = options.operations;
    this.sleep = options.sleep ?? realSleep;
    this.newSeed = options.newSeed ?? (() => randomInt(0, 2 ** 32));
    this.seed = this.newSeed();
  }

  /** Replaces the rule set: counts start again and each rule's stream starts from the seed. */
  arm(input: ChaosRuleSetInput): ChaosState {
    const rules = parseRules(input.rules, this.options.operations, this.options.newId);
    this.seed = input.seed ?? this.newSeed();
    this.armed = rules.map((rule, index) => ({
      rule,
      random: seededRandom(ruleSeed(this.seed, index)),
      matched: 0,
      fired: 0,
    }));
    return this.list();
  }

  list(): ChaosState {
    return {
      seed: this.seed,
      rules: this.armed.map(({ rule, matched, fired }) => ({
        ...structuredClone(rule),
        matched,
        fired,
      })),
    };
  }

  clear(): void {
    this.armed = [];
  }

  /** Whether any rule is armed for a surface: lets the hot paths skip the rest at no cost. */
  covers(surface: ChaosTarget['surface']): boolean {
    return this.armed.some((a) => a.rule.surface === surface);
  }

  /**
   * The rule that acts on this target, if any: the rules matching it are tried in order, each
   * drawing one number; the first whose draw falls under its probability fires.
   */
  decide(target: ChaosTarget): ChaosRule | undefined {
    for (const armed of this.armed) {
      if (!matches(armed.rule, target)) continue;
      armed.matched += 1;
      if (armed.random() < armed.rule.probability) {
        armed.fired += 1;
        return armed.rule;
      }
    }
    return undefined;
  }
}

function matches(rule: ChaosRule, target: ChaosTarget): boolean {
  if (rule.surface !== target.surface) return false;
  switch (target.surface) {
    case 'http': {
      const { operation } = target;
      if (rule.operation !== undefined) return rule.operation === operation.operationId;
      return (
        (rule.method === undefined || rule.method === operation.method) &&
        (rule.path === undefined || rule.path === operation.path)
      );
    }
    case 'smtp':
      return rule.stage === undefined || rule.stage === target.stage;
    case 'webhook':
      return (
        (rule.webhookId === undefined || rule.webhookId === target.webhookId) &&
        (rule.event === undefined || rule.event === (target.event as WebhookEvent))
      );
  }
}
