import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { ApiKeysModule } from '../../api-keys/api-keys.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { SmsPolicyModule } from '../channels/sms/sms-policy.module.js';
import { SendingModule } from '../sending.module.js';
import { FallbackScanner } from './fallback.scanner.js';
import { FallbackStore } from './fallback.store.js';

/** Chat-to-SMS fallbacks, in a process that runs workers: the scanner that makes the due ones. */
@Module({
  imports: [AccountsModule, ApiKeysModule, SendingModule, SmsPolicyModule, MetricsModule],
  providers: [FallbackStore, FallbackScanner],
  exports: [FallbackScanner],
})
export class FallbackModule {}
