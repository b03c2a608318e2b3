import { Counter, type Registry } from 'prom-client';
import { haEvents } from '../../platform/ha/ha-events.js';

/** The failover counters of this process (src/platform/ha/ha-events.ts), read at scrape time. */
export function registerHaCounters(registry: Registry): void {
  new Counter({
    name: 'bulk_redis_failovers_total',
    help: "Times this process's Redis connection came back to a different server (a Sentinel promotion followed)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(haEvents.redisFailovers);
    },
  });
  new Counter({
    name: 'bulk_db_transaction_retries_total',
    help: 'Transactions tried again after a write conflict, by cause: certification (a Galera node committed a conflicting write first) or lock (a deadlock or lock wait timeout on one server)',
    labelNames: ['cause'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ cause: 'certification' }, haEvents.certificationRetries);
      this.inc({ cause: 'lock' }, haEvents.transactionRetries - haEvents.certificationRetries);
    },
  });
}
