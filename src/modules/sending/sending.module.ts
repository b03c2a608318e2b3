import { Module } from '@nestjs/common';
import { BalanceModule } from '../balance/balance.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { QueueModule } from '../delivery/queue.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { RoutingModule } from '../delivery/connectors/routing.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { IdGenerator } from './id-generator.js';
import { SendCommitter } from './send-committer.js';
import { SendService } from './send.service.js';
import { TemplateInput } from './personalisation/template-input.js';
import { TemplatesModule } from '../templates/templates.module.js';

@Module({
  imports: [
    BalanceModule,
    MessagesModule,
    QueueModule,
    MetricsModule,
    RoutingModule,
    TemplatesModule,
    SuppressionsModule,
  ],
  providers: [IdGenerator, SendService, SendCommitter, TemplateInput],
  exports: [SendService, IdGenerator],
})
export class SendingModule {}
