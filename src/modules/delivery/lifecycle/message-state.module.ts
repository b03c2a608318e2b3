import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { BalanceModule } from '../../balance/balance.module.js';
import { MessagesModule } from '../../messages/messages.module.js';
import { DeliveryMetricsModule } from '../delivery-metrics.module.js';
import { MessageStateService } from './message-state.service.js';

/**
 * The state service, told of each committed change by `listener`: a module exporting
 * STATE_CHANGE_LISTENER (callbacks binds it), passed in so that delivery does not import callbacks.
 * One module per listener, whoever asks (the worker and the scheduling routes share it).
 */
@Module({})
export class MessageStateModule {
  private static readonly byListener = new Map<Type, DynamicModule>();

  static withListener(listener: Type): DynamicModule {
    let made = this.byListener.get(listener);
    if (!made) {
      made = {
        module: MessageStateModule,
        imports: [BalanceModule, MessagesModule, DeliveryMetricsModule, listener],
        providers: [MessageStateService],
        exports: [MessageStateService, listener],
      };
      this.byListener.set(listener, made);
    }
    return made;
  }
}
