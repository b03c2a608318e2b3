import { Module } from '@nestjs/common';
import { WebhooksModule } from '../callbacks/webhooks/webhooks.module.js';
import { BalanceModule } from '../balance/balance.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { QueueModule } from '../delivery/queue.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { RoutingModule } from '../delivery/smpp/routing.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { IdGenerator } from './id.generator.js';
import { IdNodeStore } from './id-node.store.js';
import { SendBatchStore } from './send-batch.store.js';
import { SendCommitter } from './send.committer.js';
import { TariffService } from './tariff.service.js';
import { SendingMetrics } from './sending.metrics.js';
import { SendService } from './send.service.js';
import { SendPreparation } from './send-preparation.service.js';
import { SendReplay } from './send-replay.service.js';
import { TemplateInput } from './personalisation/template-input.service.js';
import { TemplatesModule } from '../templates/templates.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { RedisModule } from '../../platform/redis/redis.module.js';
import { TestQuota } from './test-quota.service.js';
import { CountriesModule } from '../fraud/countries/countries.module.js';
import { LinksModule } from '../links/links.module.js';

@Module({
  imports: [
    BalanceModule,
    MessagesModule,
    QueueModule,
    MetricsModule,
    RoutingModule,
    TemplatesModule,
    SuppressionsModule,
    IdempotencyModule,
    RedisModule,
    CountriesModule,
    WebhooksModule,
    LinksModule,
  ],
  providers: [
    IdGenerator,
    IdNodeStore,
    SendService,
    SendPreparation,
    SendReplay,
    SendCommitter,
    SendBatchStore,
    TemplateInput,
    TestQuota,
    TariffService,
    SendingMetrics,
  ],
  // The channel modules' send routes take an Idempotency-Key (their guard resolves in their module).
  exports: [SendService, SendingMetrics, IdGenerator, IdempotencyModule],
})
export class SendingModule {}
