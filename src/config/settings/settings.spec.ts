import { describe, expect, it } from 'vitest';
import { SETTINGS, parseSettings } from './index.js';

describe('parseSettings', () => {
  it('gives every setting its default when nothing is set', () => {
    const { settings } = parseSettings({});
    expect(settings).toBeDefined();
    for (const [name, s] of Object.entries(SETTINGS))
      if (!s.fallback) expect(settings![name as keyof typeof SETTINGS], name).toBe(s.default);
    expect(settings!.PORT).toBe(3000);
    expect(settings!.SMTP_URL).toBeUndefined();
  });

  it('converts numbers and booleans, and takes a fallback setting before the default', () => {
    const { settings } = parseSettings({ PORT: '8080', RUN_WORKERS: 'no', WORKER_CONCURRENCY: '3' });
    expect(settings).toMatchObject({
      PORT: 8080,
      RUN_WORKERS: false,
      SMS_CONCURRENCY: 3,
      CALLBACK_CONCURRENCY: 16,
    });
    expect(parseSettings({ WORKER_CONCURRENCY: '3', SMS_CONCURRENCY: '5' }).settings?.SMS_CONCURRENCY).toBe(
      5,
    );
    expect(parseSettings({}).settings?.SMS_CONCURRENCY).toBe(16);
  });

  it('names each bad variable with its value and what it must be', () => {
    expect(parseSettings({ PORT: '70000', SMTP_TLS: 'sometimes' }).problems).toEqual([
      'PORT="70000": PORT must not be greater than 65535',
      'SMTP_TLS="sometimes": SMTP_TLS must be one of the following values: required, opportunistic, off',
    ]);
  });

  it('counts an empty token as unset, and wants SMTP_URL only with EMAIL_TRANSPORT=smtp', () => {
    expect(parseSettings({ METRICS_TOKEN: '' }).settings?.METRICS_TOKEN).toBeUndefined();
    expect(parseSettings({ EMAIL_TRANSPORT: 'smtp' }).problems).toEqual([
      'SMTP_URL="": must look like smtp://user:password@host:587 (required when EMAIL_TRANSPORT=smtp)',
    ]);
    expect(parseSettings({ EMAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://relay:25' }).problems).toBeUndefined();
  });
});
