import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { MessagesModule } from '../../messages/messages.module.js';
import { CancellationService } from './cancellation.service.js';
import { MessageStateModule } from '../lifecycle/message-state.module.js';
import { RescheduleService } from './reschedule.service.js';
import { SchedulingController } from './scheduling.controller.js';

/**
 * The cancel and reschedule routes. They change message states, so an API process needs the
 * state service (and its listener, a module exporting STATE_CHANGE_LISTENER) even when it runs no workers.
 */
@Module({})
export class SchedulingModule {
  static forRoot(options: { stateListener: Type }): DynamicModule {
    return {
      module: SchedulingModule,
      imports: [MessagesModule, MessageStateModule.withListener(options.stateListener)],
      controllers: [SchedulingController],
      providers: [CancellationService, RescheduleService],
    };
  }
}
