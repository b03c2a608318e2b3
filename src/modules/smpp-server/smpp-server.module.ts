import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { SendingModule } from '../sending/sending.module.js';
import { SmsPolicyModule } from '../sending/channels/sms/sms-policy.module.js';
import { BindChecker } from './binds/bind-check.service.js';
import { BindLockout } from './binds/bind-lockout.service.js';
import { SubmitBucket } from './binds/submit-bucket.service.js';
import { BoundSessions } from './bound-sessions.registry.js';
import { SegmentAssembler } from './segments/segment.assembler.js';
import { SegmentStore } from './segments/segment.store.js';
import { SmppAdminModule } from './smpp-admin.module.js';
import { SmppListener } from './smpp.listener.js';
import { SmppSend } from './submit/smpp-send.service.js';
import { SmppSubmitHandler } from './submit/smpp-submit.handler.js';
import { SmppSubmitMetrics } from './submit/smpp-submit.metrics.js';
import { MetricsModule } from '../metrics/metrics.module.js';

/**
 * The SMPP server for customers (API processes only): the listener, sessions, the bind
 * registry, throttles and the submit path into the one send pipeline. What hears of binds and
 * stored messages (receipts out) takes BoundSessions, SmppSend and SegmentAssembler from here.
 */
@Module({
  imports: [
    AccountsModule,
    ApiKeysModule,
    RedisModule,
    SendingModule,
    SmsPolicyModule,
    SmppAdminModule,
    MetricsModule,
  ],
  providers: [
    BoundSessions,
    BindLockout,
    BindChecker,
    SubmitBucket,
    SegmentStore,
    SegmentAssembler,
    SmppSend,
    SmppSubmitHandler,
    SmppSubmitMetrics,
    SmppListener,
  ],
  exports: [BoundSessions, SmppAdminModule, SegmentStore, SmppSend, SegmentAssembler],
})
export class SmppServerModule {}
