import { describe, expect, it } from 'vitest';
import { signCallback } from '../../../src/modules/callbacks/signature.js';
import { verifySignature } from '../src/index.js';

/** The client's check against the service's own signing: any drift between the two shows here. */
describe('verifySignature', () => {
  const secret = 'cbs_3f9a0c1d2e4b5a6978800112233445566';
  const rawBody = JSON.stringify({ event_id: 'e-1', status: 'DELIVERED', recipient: '260971234567' });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signCallback(secret, timestamp, rawBody);

  it('accepts what the service signs, as text or as bytes, with the timestamp as text or number', () => {
    expect(verifySignature({ secret, timestamp, signature, rawBody })).toBe(true);
    expect(
      verifySignature({ secret, timestamp: String(timestamp), signature, rawBody: Buffer.from(rawBody) }),
    ).toBe(true);
    expect(
      verifySignature({ secret, timestamp, signature, rawBody: new TextEncoder().encode(rawBody) }),
    ).toBe(true);
  });

  it('refuses another body, another secret, a missing or malformed header', () => {
    expect(
      verifySignature({ secret, timestamp, signature, rawBody: rawBody.replace('DELIVERED', 'FAILED') }),
    ).toBe(false);
    expect(verifySignature({ secret: `${secret}x`, timestamp, signature, rawBody })).toBe(false);
    expect(verifySignature({ secret, timestamp, signature: undefined, rawBody })).toBe(false);
    expect(verifySignature({ secret, timestamp: undefined, signature, rawBody })).toBe(false);
    expect(verifySignature({ secret, timestamp: `${timestamp}.5`, signature, rawBody })).toBe(false);
    expect(verifySignature({ secret, timestamp, signature: signature.toUpperCase(), rawBody })).toBe(false);
  });

  it('refuses a timestamp outside the tolerance (a replayed request), in either direction', () => {
    expect(verifySignature({ secret, timestamp, signature, rawBody, nowSeconds: timestamp + 301 })).toBe(
      false,
    );
    expect(verifySignature({ secret, timestamp, signature, rawBody, nowSeconds: timestamp - 301 })).toBe(
      false,
    );
    expect(verifySignature({ secret, timestamp, signature, rawBody, nowSeconds: timestamp + 299 })).toBe(
      true,
    );
    expect(
      verifySignature({
        secret,
        timestamp,
        signature,
        rawBody,
        nowSeconds: timestamp + 900,
        toleranceSeconds: 1_000,
      }),
    ).toBe(true);
  });
});
