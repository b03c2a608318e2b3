import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import type { Setting } from './define.js';
import { derive } from './derive.js';
import { SETTINGS, parseSettings } from './index.js';

const source = (file: string) => readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8');

describe('the configuration derived from the setting declarations', () => {
  it('puts each setting at its path, converted by its `to`, and unset ones without a default as undefined', () => {
    const { settings } = parseSettings({
      RETENTION_SCHEDULE: '24h',
      PASSWORD_CACHE_SECONDS: '5',
      PUBLIC_BASE_URL: 'https://sms.example.com//',
      AUTH_FAILURES_PER_ADDRESS: '7/30',
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: 'smpp://u:p@127.0.0.1:2775',
    });
    const config = derive(settings!);
    expect(config.retention.scheduleMs).toBe(86_400_000);
    expect(config.authThrottle.passwordCacheMs).toBe(5000);
    expect(config.publicBaseUrl).toBe('https://sms.example.com');
    expect(config.authThrottle.failuresPerAddress).toEqual({ limit: 7, windowSeconds: 30 });
    expect(config.transports).toEqual({ sms: 'smpp', email: 'sandbox', chat: 'sandbox' });
    expect(config.retention.archiveDir).toBeUndefined();
    expect('archiveDir' in config.retention).toBe(true);
  });

  it('names the setting when its conversion refuses the value', () => {
    expect(() => loadConfig({ RECEIPT_WAIT: '500ms' })).toThrow('RECEIPT_WAIT="500ms": must be at least 1s');
    expect(() => loadConfig({ RETENTION_SCHEDULE: '10ms' })).toThrow('RETENTION_SCHEDULE="10ms"');
  });

  it('gives no two settings one path, and reads every setting without a path where the configuration is composed', () => {
    const entries = Object.entries(SETTINGS) as Array<[string, Setting]>;
    const paths = entries.flatMap(([, s]) => (s.path ? [s.path] : []));
    expect(new Set(paths).size).toBe(paths.length);
    // A path that is a prefix of another would make one setting overwrite a group.
    for (const p of paths)
      expect(
        paths.filter((q) => q.startsWith(`${p}.`)),
        p,
      ).toEqual([]);
    const composers = ['../config.ts', '../redis-connection.ts', '../body-limits.ts'].map(source).join('\n');
    const fallbacks = new Set(entries.map(([, s]) => s.fallback));
    const unread = entries
      .filter(([name, s]) => !s.path && !fallbacks.has(name) && !new RegExp(`\\b${name}\\b`).test(composers))
      .map(([name]) => name);
    expect(unread).toEqual([]);
  });
});
