import { describe, expect, it } from 'vitest';
import { NEEDS, NEED_DESCRIPTIONS, type Need, type TargetConfig } from './config.ts';
import { PROFILES, offeredNeeds, selectCheck } from './profiles.ts';

const LIVE: Extract<TargetConfig, { kind: 'live' }> = {
  kind: 'live',
  baseUrl: 'https://mail.example.com/openapi/v1',
  apiKey: 'sk-one',
  mailboxes: [],
  destructive: false,
};
const CONTROL = { baseUrl: 'https://mail.example.com/_mailtwin/v1', token: 't' };
const ALL = new Set<Need>(NEEDS);

const sorted = (set: ReadonlySet<Need>) => [...set].sort();

describe('offeredNeeds', () => {
  it('offers everything on the in-process emulator', () => {
    expect(sorted(offeredNeeds({ kind: 'emulator' }))).toEqual([...NEEDS].sort());
  });

  it('offers nothing on a live target given only a key', () => {
    expect(sorted(offeredNeeds(LIVE))).toEqual([]);
  });

  it('offers destructive only with --destructive', () => {
    expect(sorted(offeredNeeds({ ...LIVE, destructive: true }))).toEqual(['destructive']);
  });

  it('offers every need but the receiver with --control-url: the control world', () => {
    expect(sorted(offeredNeeds({ ...LIVE, control: CONTROL }))).toEqual(
      NEEDS.filter((need) => need !== 'webhook-receiver' && need !== 'destructive').sort(),
    );
  });

  it('offers a second key with --second-api-key alone', () => {
    expect(sorted(offeredNeeds({ ...LIVE, secondApiKey: 'sk-two' }))).toEqual(['second-key']);
  });

  it('offers in an API world what the flags give: mail by sending, keys by role, suppressed, a receiver', () => {
    const apiWorld = {
      ...LIVE,
      destructive: true,
      mailboxes: ['a@example.com'],
      keys: {
        'other-owner': 'sk-2',
        'one-domain': 'sk-3',
        'selected-mailbox': 'sk-4',
        disabled: 'sk-5',
        'disabled-owner': 'sk-6',
      },
      suppressed: ['gone@example.com'],
      webhook: {
        listen: { host: '127.0.0.1', port: 9000 },
        publicUrl: 'https://hooks.example.com/in',
        secret: 'whsec_x',
      },
    };
    expect(sorted(offeredNeeds(apiWorld))).toEqual(
      [
        'destructive',
        'disabled-keys',
        'mail',
        'scoped-keys',
        'second-key',
        'suppressed',
        'webhook-receiver',
      ].sort(),
    );
    // Mail is built by sending: never without --destructive, never without a mailbox.
    expect(offeredNeeds({ ...apiWorld, destructive: false }).has('mail')).toBe(false);
    expect(offeredNeeds({ ...apiWorld, mailboxes: [] }).has('mail')).toBe(false);
    // One scoped key is not the pair the scope checks compare.
    expect(offeredNeeds({ ...apiWorld, keys: { 'one-domain': 'sk-3' } }).has('scoped-keys')).toBe(
      false,
    );
  });

  it('never assumes a live target reaches the loopback webhook receiver', () => {
    const everything = { ...LIVE, destructive: true, control: CONTROL, secondApiKey: 'sk-two' };
    expect(offeredNeeds(everything).has('webhook-receiver')).toBe(false);
  });
});

describe('selectCheck', () => {
  it('runs a check with no needs under every profile', () => {
    for (const profile of Object.keys(PROFILES) as (keyof typeof PROFILES)[])
      expect(selectCheck([], new Set(), profile)).toEqual({ run: true });
  });

  it('skips a check whose need the target lacks, with the description of that need', () => {
    expect(selectCheck(['provisioning', 'destructive'], new Set(['destructive']), 'full')).toEqual({
      run: false,
      reason: `needs ${NEED_DESCRIPTIONS['provisioning']}`,
    });
  });

  it('names every missing need, joined with semicolons', () => {
    const selection = selectCheck(['provisioning', 'second-key'], new Set(), 'quick');
    expect(selection).toEqual({
      run: false,
      reason: `needs ${NEED_DESCRIPTIONS['provisioning']}; ${NEED_DESCRIPTIONS['second-key']}`,
    });
  });

  it('leaves writing checks out of read-only even where the target would allow them', () => {
    expect(selectCheck(['provisioning', 'destructive'], ALL, 'read-only')).toEqual({
      run: false,
      reason: 'left out by --profile read-only: it writes through the API (needs destructive)',
    });
  });

  it('runs reading checks under read-only', () => {
    expect(selectCheck(['provisioning'], ALL, 'read-only')).toEqual({ run: true });
  });

  it('selects under certify exactly as under full: certify refuses skips afterwards', () => {
    const needs: Need[][] = [[], ['destructive'], ['provisioning', 'webhook-receiver']];
    for (const offers of [ALL, new Set<Need>(), new Set<Need>(['provisioning'])])
      for (const n of needs)
        expect(selectCheck(n, offers, 'certify')).toEqual(selectCheck(n, offers, 'full'));
  });
});

describe('PROFILES', () => {
  it('gives quick 10 runs, full and certify 50, and only certify no skips; none is strict', () => {
    expect(PROFILES.quick.numRuns).toBe(10);
    expect(PROFILES.full.numRuns).toBe(50);
    expect(PROFILES.certify).toMatchObject({ numRuns: 50, strict: false, noSkips: true });
    for (const name of ['full', 'quick', 'read-only'] as const)
      expect(PROFILES[name]).toMatchObject({ strict: false, noSkips: false });
  });

  it('leaves out only destructive checks, and only in read-only', () => {
    expect(PROFILES['read-only'].excludes).toEqual(['destructive']);
    for (const name of ['full', 'quick', 'certify'] as const)
      expect(PROFILES[name].excludes).toEqual([]);
  });
});
