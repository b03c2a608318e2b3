import { Injectable } from '@nestjs/common';
import { TtlCache } from '../../platform/caching/ttl-cache.js';
import { CONVERSION_SAMPLE, type Conversion } from '../fraud/pumping/pumping-rules.js';
import { VerificationStore, type VerificationOwner } from './verification.store.js';

/**
 * A country's conversion is believed this long: every start to the country asks for it, and a
 * second's drift cannot matter to a verdict taken over its last 100 decided verifications. A
 * verification closed in this process is seen by its next start at once.
 */
export const CONVERSION_TTL_MS = 1000;
const MAX_ENTRIES = 100_000;

/** The pumping guard's conversion per account side and country, read from the verifications. */
@Injectable()
export class VerificationConversions {
  private readonly cache = new TtlCache<Conversion>(CONVERSION_TTL_MS, MAX_ENTRIES);

  constructor(private readonly store: VerificationStore) {}

  of(owner: VerificationOwner, country: string, now: Date): Promise<Conversion> {
    return this.cache.get(key(owner, country), () =>
      this.store.conversion(owner, country, now, CONVERSION_SAMPLE),
    );
  }

  /** A verification of the country was decided: its next start reads the conversion anew. */
  forget(owner: VerificationOwner, country: string): void {
    this.cache.delete(key(owner, country));
  }
}

const key = (o: VerificationOwner, country: string) => `${o.accountId}:${o.testMode ? 't' : 'l'}:${country}`;
