import { describe, expect, it } from 'vitest';
import { NothingSent, expectSentSomething } from './nothing-sent.ts';

describe('expectSentSomething', () => {
  it('fails a check that sent no request, naming it', () => {
    expect(() => expectSentSomething(0, 'the check "lists mailboxes"')).toThrow(NothingSent);
    expect(() => expectSentSomething(0, 'the check "lists mailboxes"')).toThrow(
      /^the check "lists mailboxes" sent no request to the target, so it checked nothing/,
    );
  });

  it('passes a check that sent one request or more', () => {
    expect(() => expectSentSomething(1, 'x')).not.toThrow();
    expect(() => expectSentSomething(250, 'x')).not.toThrow();
  });
});
