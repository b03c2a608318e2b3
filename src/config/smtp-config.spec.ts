import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('SMTP settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const unset = {
    SMTP_TLS: undefined,
    SMTP_TLS_CA: undefined,
    SMTP_TLS_REJECT_UNAUTHORIZED: undefined,
    SMTP_POOL_IDLE_MS: undefined,
    EMAIL_MESSAGE_ID_DOMAIN: undefined,
    SMTP_EHLO_NAME: undefined,
  };
  const problems = (overrides: Record<string, string>) => {
    try {
      loadConfig({ ...unset, ...overrides });
    } catch (err) {
      return err instanceof ConfigError ? err.problems : [String(err)];
    }
    return [];
  };

  it('is secure by default: TLS required, certificates verified, no extra CA', () => {
    expect(loadConfig(unset).smtp).toEqual({
      tls: 'required',
      ca: undefined,
      caPath: undefined,
      rejectUnauthorized: true,
      poolIdleMs: 60_000,
      messageIdDomain: undefined,
      ehloName: undefined,
    });
  });

  it('reads SMTP_TLS_CA once at start and refuses a file that is missing or holds no certificate', () => {
    const pem = join(dir, 'ca.pem');
    writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(
      loadConfig({
        ...unset,
        SMTP_TLS_CA: pem,
        SMTP_TLS: 'opportunistic',
        EMAIL_MESSAGE_ID_DOMAIN: 'Mail.ACME.example',
      }).smtp,
    ).toMatchObject({
      tls: 'opportunistic',
      ca: expect.stringContaining('BEGIN CERTIFICATE'),
      messageIdDomain: 'mail.acme.example',
    });
    expect(problems({ SMTP_TLS_CA: join(dir, 'nope.pem') })[0]).toMatch(
      /^SMTP_TLS_CA=".*nope\.pem": cannot be read/,
    );
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(problems({ SMTP_TLS_CA: junk })[0]).toMatch(/^SMTP_TLS_CA=.*holds no PEM certificate/);
  });

  it('names each bad variable', () => {
    expect(problems({ SMTP_TLS: 'maybe' })[0]).toMatch(/^SMTP_TLS="maybe"/);
    expect(problems({ SMTP_TLS_REJECT_UNAUTHORIZED: 'sometimes' })[0]).toMatch(
      /^SMTP_TLS_REJECT_UNAUTHORIZED=/,
    );
    expect(problems({ EMAIL_MESSAGE_ID_DOMAIN: 'not a domain' })[0]).toMatch(/^EMAIL_MESSAGE_ID_DOMAIN=/);
    expect(problems({ SMTP_POOL_IDLE_MS: '-1' })[0]).toMatch(/^SMTP_POOL_IDLE_MS=/);
    expect(problems({ SMTP_EHLO_NAME: 'localhost' })[0]).toMatch(/^SMTP_EHLO_NAME=.*fully qualified/);
  });
});
