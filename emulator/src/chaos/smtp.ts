import type { Chaos } from './chaos.ts';
import type { ChaosRule, SmtpStage } from './rules.ts';

/** One SMTP step as chaos rules see it: decided when the step starts, acted on when it ends. */
export interface SmtpGate {
  rule: ChaosRule | undefined;
  /** Waits the rule's latency, then answers its reply (`refuse`) or carries on (`proceed`). */
  pass(proceed: () => void, refuse: (code: number, text: string) => void): void;
}

/**
 * Decides a stage of the SMTP exchange (connect, MAIL, RCPT, DATA) now, so the order of draws is
 * the order of the exchange's steps and a seed replays; with no rule for SMTP it costs nothing.
 */
export function smtpGate(chaos: Chaos | undefined, stage: SmtpStage): SmtpGate {
  const rule = chaos?.covers('smtp') ? chaos.decide({ surface: 'smtp', stage }) : undefined;
  return {
    rule,
    pass(proceed, refuse) {
      if (rule === undefined) return proceed();
      const act = () =>
        rule.reply === undefined ? proceed() : refuse(rule.reply.code, rule.reply.text);
      if (rule.latencyMs > 0 && chaos !== undefined) void chaos.sleep(rule.latencyMs).then(act);
      else act();
    },
  };
}
