import { Module } from '@nestjs/common';
import { BalanceModule } from '../balance/balance.module.js';
import { CallbackOutbox } from '../callbacks/callback-outbox.js';
import { MessagesModule } from '../messages/messages.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { CancellationService } from './cancellation.service.js';
import { MessageStateService } from './message-state.service.js';
import { QueueModule } from './queue.module.js';
import { RescheduleService } from './reschedule.service.js';
import { SchedulingController } from './scheduling.controller.js';

/**
 * The API's cancel and reschedule routes. They change message states, so they need the state
 * service (and its callback outbox) even in an API process that runs no workers.
 */
@Module({
  imports: [BalanceModule, MessagesModule, QueueModule, MetricsModule],
  controllers: [SchedulingController],
  providers: [MessageStateService, CallbackOutbox, CancellationService, RescheduleService],
})
export class SchedulingModule {}
