import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/loadtest/options.js';

/** The load tester's command line, as an operator types it. */
describe('load tester options', () => {
  const base = ['--url', 'http://127.0.0.1:3000/', '--scenario', 'chat'];

  // Tokens are random base64url: one in 64 begins with a dash, which parseArgs alone refuses as ambiguous.
  it('takes a token or a manage token that begins with a dash, given as the next argument or after =', () => {
    expect(parseOptions([...base, '--app', 'app1', '--token', '-Xy_z']).auth).toEqual({ appid: 'app1', token: '-Xy_z' });
    expect(parseOptions([...base, '--manage-token', '--abc']).auth).toEqual({ manageToken: '--abc' });
    expect(parseOptions([...base, '--app', 'app1', '--token=-Xy_z']).auth).toEqual({ appid: 'app1', token: '-Xy_z' });
    expect(parseOptions([...base, '--app', 'app1', '--token', 'plain']).urls).toEqual(['http://127.0.0.1:3000']);
  });

  it('still refuses an option without its value, and a run without credentials', () => {
    expect(() => parseOptions([...base, '--fans', '--app'])).toThrow(/ambiguous/);
    expect(() => parseOptions([...base, '--app', 'app1'])).toThrow(/--manage-token, or --app and --token/);
  });
});
