import { Module } from '@nestjs/common';
import { VerificationStore } from './verification.store.js';

/** The verifications table, for the routes (API) and the masking listener (workers) alike. */
@Module({
  providers: [VerificationStore],
  exports: [VerificationStore],
})
export class VerificationStoreModule {}
