import { describe, expect, it } from 'vitest';
import { UsageError, parseServeOptions } from './cli-options.ts';

describe('mailtwin serve options', () => {
  it('defaults to 127.0.0.1:4025', () => {
    expect(parseServeOptions([])).toEqual({ port: 4025, host: '127.0.0.1' });
  });

  it('accepts --port 0 (a free port) and --host', () => {
    expect(parseServeOptions(['--port', '0', '--host', '0.0.0.0'])).toEqual({
      port: 0,
      host: '0.0.0.0',
    });
  });

  it.each([['-1'], ['65536'], ['4x'], ['']])('refuses --port=%j with a reason', (port) => {
    expect(() => parseServeOptions([`--port=${port}`])).toThrow(UsageError);
    expect(() => parseServeOptions([`--port=${port}`])).toThrow(
      /--port must be an integer from 0 to 65535/,
    );
  });

  it('refuses unknown flags', () => {
    expect(() => parseServeOptions(['--prot', '1'])).toThrow(UsageError);
  });

  it('returns help for --help and -h', () => {
    expect(parseServeOptions(['--help'])).toBe('help');
    expect(parseServeOptions(['-h'])).toBe('help');
  });
});
