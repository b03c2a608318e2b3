import { Module } from '@nestjs/common';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { PumpingModule } from '../fraud/pumping/pumping.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { ChatModule } from '../sending/channels/chat/chat.module.js';
import { EmailModule } from '../sending/channels/email/email.module.js';
import { SmsPolicyModule } from '../sending/channels/sms/sms-policy.module.js';
import { SendingModule } from '../sending/sending.module.js';
import { TemplatesModule } from '../templates/templates.module.js';
import { VerificationChecks } from './verification-checks.service.js';
import { VerificationExpiry } from './verification-expiry.sweep.js';
import { VerificationConversions } from './verification-conversion.cache.js';
import { VerificationOutcomes } from './verification-outcomes.service.js';
import { WebhooksModule } from '../callbacks/webhooks/webhooks.module.js';
import { VerificationRate } from './verification-rate.limiter.js';
import { VerificationStoreModule } from './verification-store.module.js';
import { VerifyController } from './verify.controller.js';
import { VerifyMetrics } from './verify.metrics.js';
import { VerifyService } from './verify.service.js';

/** Verification by one-time code: its routes, the codes' sends, checks and expiry (API processes). */
@Module({
  imports: [
    SendingModule,
    SmsPolicyModule,
    EmailModule,
    ChatModule,
    TemplatesModule,
    PumpingModule,
    MetricsModule,
    RedisModule,
    WebhooksModule,
    VerificationStoreModule,
  ],
  controllers: [VerifyController],
  providers: [
    VerifyService,
    VerificationChecks,
    VerificationRate,
    VerificationOutcomes,
    VerificationConversions,
    VerifyMetrics,
    VerificationExpiry,
  ],
})
export class VerifyHttpModule {}
