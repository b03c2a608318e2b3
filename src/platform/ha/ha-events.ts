/**
 * What high availability cost this process since it started, for the metrics: a Redis
 * connection that came back to a different primary (a Sentinel failover followed), and
 * transactions tried again after a write conflict at COMMIT (on a Galera cluster, a
 * certification failure: another node committed a conflicting write first). Process-wide
 * because the connections that see these are made outside any one module.
 */
export const haEvents = {
  redisFailovers: 0,
  /** Lock conflicts retried whole (deadlocks, lock wait timeouts, certification failures). */
  transactionRetries: 0,
  /** Those of them that Galera reported as a certification failure (its message names WSREP). */
  certificationRetries: 0,
};
