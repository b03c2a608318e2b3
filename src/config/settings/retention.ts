import { retentionSchedule } from './convert.js';
import { int, text } from './define.js';

/** How long rows are kept, where removed ones are archived, and how pruning paces itself. */
export const retentionSettings = {
  MESSAGE_RETENTION_DAYS: int({
    path: 'retention.messageDays',
    min: 1,
    max: 36_500,
    default: 90,
    doc: 'final messages last changed longer ago are removed by `db prune` (see [Retention, archives and erasure](retention.md))',
  }),
  ARCHIVE_DIR: text({
    path: 'retention.archiveDir',
    pattern: /^\S/,
    message: 'must be a directory path',
    example: '/var/lib/bulk-messaging/archive',
    doc: 'directory that receives removed rows first (compressed NDJSON per day and table family); unset: no archive',
  }),
  RETENTION_SCHEDULE: text({
    path: 'retention.scheduleMs',
    to: retentionSchedule,
    pattern: /^(off|\d+(ms|s|m|h|d))$/,
    message: 'must be off or a duration such as 24h or 30m (at least 1s)',
    default: 'off',
    doc: 'how often a worker prunes on its own (a duration such as `24h`, at least `1s`); `off`: only `db prune` does',
  }),
  RETENTION_BATCH: int({
    path: 'retention.batch',
    min: 1,
    max: 50_000,
    default: 500,
    doc: 'messages removed per batch',
  }),
  RETENTION_PAUSE_MS: int({
    path: 'retention.pauseMs',
    min: 0,
    max: 60_000,
    default: 20,
    doc: 'the shortest pause between two batches',
  }),
  RETENTION_PAUSE_FACTOR: int({
    path: 'retention.pauseFactor',
    min: 0,
    max: 1000,
    default: 48,
    doc: 'while others write to the database, each pause lasts at least this many times as long as the batch before it took (`0`: `RETENTION_PAUSE_MS` alone); lower it for a faster prune at some cost to sends',
  }),
  RETENTION_QUIET_PAUSE_FACTOR: int({
    path: 'retention.quietPauseFactor',
    min: 0,
    max: 1000,
    default: 1,
    doc: 'the same factor while the database is quiet (see `RETENTION_QUIET_WRITES`): the prune goes faster when nothing else would feel it',
  }),
  RETENTION_QUIET_WRITES: int({
    path: 'retention.quietWrites',
    min: 0,
    max: 1_000_000,
    default: 100,
    doc: 'the database counts as quiet while others wrote fewer rows than this per second (inserted and updated: the `Handler_write` and `Handler_update` counters of its server) since the batch before; `0`: never quiet',
  }),
  RETENTION_NICE: int({
    path: 'retention.nice',
    min: 0,
    max: 19,
    default: 19,
    doc: "the CPU niceness `db prune` and `db archive` give their own process once started (19: the lowest priority, the CPU others leave; `0`: as any other process); the scheduled prune in a worker keeps the worker's",
  }),
  PARTITION_DAYS_AHEAD: int({
    path: 'retention.partitionDaysAhead',
    min: 1,
    max: 366,
    default: 7,
    doc: 'the day partitions of the message tables, `delivery_reports` and `callback_attempts` are made this many days ahead, by `db migrate` and hourly by the workers (see [Retention, archives and erasure](retention.md))',
  }),
  PARTITION_SPAN_DAYS: int({
    path: 'retention.partitionSpanDays',
    min: 1,
    max: 31,
    default: 1,
    doc: 'days each new partition of the message tables, `delivery_reports` and `callback_attempts` covers: a prune drops a partition whole once every message in it may go',
  }),
  LINK_RETENTION_DAYS: int({
    path: 'shortLinks.retentionDays',
    min: 1,
    max: 36_500,
    default: 90,
    doc: 'a short link older than this many days answers 404, and `db prune` removes it',
  }),
  REQUEST_LOG_RETENTION_DAYS: int({
    path: 'requestLogRetentionDays',
    min: 1,
    max: 36_500,
    default: 30,
    doc: 'request-log rows older than this many days are removed by `logs prune`',
  }),
};
