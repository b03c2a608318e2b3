import { Module } from '@nestjs/common';
import { BalanceModule } from '../modules/balance/balance.module.js';
import { CallbackOutbox } from '../modules/callbacks/callback-outbox.js';
import { CallbackQueueModule } from '../modules/callbacks/callback-queue.module.js';
import { CancellationService } from '../modules/delivery/cancellation.service.js';
import { MessageStateService } from '../modules/delivery/message-state.service.js';
import { QueueModule } from '../modules/delivery/queue.module.js';
import { RescheduleService } from '../modules/delivery/reschedule.service.js';
import { SchedulingController } from '../modules/delivery/scheduling.controller.js';
import { STATE_CHANGE_LISTENER } from '../modules/delivery/state-change-listener.js';
import { MessagesModule } from '../modules/messages/messages.module.js';
import { MetricsModule } from '../modules/metrics/metrics.module.js';

/**
 * The API's cancel and reschedule routes. They change message states, so an API process needs
 * the state service (and, bound here as in the worker module, the callback outbox that hears of
 * each change) even when it runs no workers.
 */
@Module({
  imports: [BalanceModule, MessagesModule, QueueModule, MetricsModule, CallbackQueueModule],
  controllers: [SchedulingController],
  providers: [
    MessageStateService,
    { provide: STATE_CHANGE_LISTENER, useExisting: CallbackOutbox },
    CancellationService,
    RescheduleService,
  ],
})
export class SchedulingApiModule {}
