import { Module } from '@nestjs/common';
import { SmsPolicy } from './sms.policy.js';

/** The SMS rules (encoding, segments, sender), without the HTTP routes: inbound auto-replies use them too. */
@Module({
  providers: [SmsPolicy],
  exports: [SmsPolicy],
})
export class SmsPolicyModule {}
