import { describe, expect, it } from 'vitest';
import { listeningLines } from './listening-lines.js';

const facts = {
  name: 'bulk-messaging',
  env: 'production',
  runWorkers: false,
  callbackAllowPrivateNetworks: false,
  hasAccounts: true,
};

describe('listeningLines', () => {
  it('names a single address as the only one, and gives its URL', () => {
    const [first, second, ...rest] = listeningLines({
      ...facts,
      address: { address: '10.0.0.5', family: 'IPv4', port: 8080 },
    });
    expect(first!.msg).toBe('bulk-messaging listening on :8080, 10.0.0.5 only (env production, workers off)');
    expect(second!.msg).toBe(
      'serving http://10.0.0.5:8080: API reference http://10.0.0.5:8080/docs, health http://10.0.0.5:8080/health',
    );
    expect(rest).toEqual([]);
  });

  it('brackets an IPv6 address in the URL and says nothing of accounts it could not count', () => {
    const lines = listeningLines({
      ...facts,
      hasAccounts: undefined,
      address: { address: 'fd00::2', family: 'IPv6', port: 3000 },
    });
    expect(lines[1]!.msg).toMatch(/^serving http:\/\/\[fd00::2\]:3000:/);
    expect(lines.map((l) => l.msg).join('\n')).not.toMatch(/no account/);
  });
});
