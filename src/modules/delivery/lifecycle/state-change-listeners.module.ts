import { Logger, Module, type InjectionToken, type Type } from '@nestjs/common';
import {
  STATE_CHANGE_LISTENER,
  type CommittedChange,
  type StateChangeListener,
} from './state-change.listener.js';

/** A feature's module that exports its state-change listener under a token of its own. */
export type ListenerModule = Type & { readonly listener: InjectionToken };

/**
 * Several features hear every committed state change (callbacks, SMPP receipts). Each is told
 * of every change whatever another does: one that throws does not keep the others from it.
 */
export class StateChangeFanOut implements StateChangeListener {
  private readonly logger = new Logger('StateChangeListeners');

  constructor(private readonly listeners: StateChangeListener[]) {}

  async committed(changes: CommittedChange[]): Promise<void> {
    await this.each((l) => l.committed(changes));
  }

  async recover(): Promise<number> {
    return (await this.each((l) => l.recover())).reduce((a, b) => a + b, 0);
  }

  private async each<T>(call: (l: StateChangeListener) => Promise<T>): Promise<T[]> {
    const settled = await Promise.allSettled(this.listeners.map((l) => call(l)));
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    // The caller reports one failure; the others are logged here so none goes unseen.
    for (const extra of failed.slice(1))
      this.logger.warn(String((extra.reason as Error)?.message ?? extra.reason));
    if (failed.length) throw failed[0]!.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }
}

const made = new Map<string, Type>();

/**
 * The module that binds STATE_CHANGE_LISTENER to every given feature's listener, so that delivery
 * imports none of them. The same list gives the same module (the worker and the scheduling routes
 * share one).
 */
export function stateChangeListeners(...modules: ListenerModule[]): Type {
  const key = modules.map((m) => m.name).join('+');
  let module = made.get(key);
  if (!module) {
    class StateChangeListenersModule {}
    module = StateChangeListenersModule;
    Module({
      imports: modules,
      providers: [
        {
          provide: STATE_CHANGE_LISTENER,
          useFactory: (...listeners: StateChangeListener[]) => new StateChangeFanOut(listeners),
          inject: modules.map((m) => m.listener),
        },
      ],
      exports: [STATE_CHANGE_LISTENER],
    })(module);
    made.set(key, module);
  }
  return module;
}
