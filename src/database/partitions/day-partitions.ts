/**
 * The plan of the message tables' time partitions, as pure values and DDL text. Message ids
 * are 13 digits of epoch milliseconds then 6 of node and sequence, so the first id of a moment
 * is its milliseconds followed by six zeros, and `PARTITION BY RANGE` on the id (or on the
 * message_id of a message's events and parts) cuts the tables by creation time. Every table
 * uses the same bounds, so a day's partition of each holds the same messages' rows and is
 * dropped with them. The last partition, `pmax`, takes every id past the planned days: a send
 * never fails for want of a partition, and the rows it holds are split off by REORGANIZE
 * PARTITION when the days ahead are made.
 */

export const DAY_MS = 86_400_000;

/** The catch-all partition past the planned days. */
export const CATCH_ALL = 'pmax';

/**
 * The partitioned tables, the database each is in and the column each is cut on. A receipt
 * (notification database) is cut on `day_id`: its message's id once it matched one, so it
 * sits in its message's day and goes with it; until then (`message_id` NULL: a receipt that
 * came before its message's SENT, or matched none) an id-shaped moment of its arrival,
 * `UNIX_TIMESTAMP()` followed by nine zeros, which is at or after its message's day. The
 * report's own id is an AUTO_INCREMENT: ordered, but it says no day. `day_id` is the column's
 * DEFAULT, so every INSERT sets it; the UPDATE that matches a receipt sets it to the message id
 * (delivery-report.store.ts), and the row moves to its message's day. A callback attempt is cut
 * on `day_id` the same way: its message's id when it is a message's event (`event_type`
 * 'message'); an attempt at another event (an inbound message's, a subscribed endpoint's) has
 * another subject in `message_id`, so it takes the id-shaped moment it was recorded, its
 * arrival day. An attempt is written once and never updated. A request log (log database) is cut
 * on `day_id` too, the id-shaped moment of its `created_at` (the request's time, written by
 * the API in UTC), computed as the column's DEFAULT by date arithmetic that no session time
 * zone changes: its day's partition holds exactly the rows of that day, and goes by the
 * request logs' own age (REQUEST_LOG_RETENTION_DAYS), not the messages'. A log row is never
 * updated but for its path (an erasure).
 */
export const ALL_PARTITIONED_TABLES = [
  { table: 'messages', key: 'id', db: 'main' },
  { table: 'message_events', key: 'message_id', db: 'main' },
  { table: 'message_parts', key: 'message_id', db: 'main' },
  { table: 'delivery_reports', key: 'day_id', db: 'notification' },
  { table: 'callback_attempts', key: 'day_id', db: 'notification' },
  { table: 'request_logs', key: 'day_id', db: 'log' },
] as const;

/** The partitioned tables of the main database (the message tables). */
export const PARTITIONED_TABLES = ALL_PARTITIONED_TABLES.filter((t) => t.db === 'main');

/** The receipts' partition column, added with their partitions. */
export const REPORT_DAY_COLUMN =
  'ADD COLUMN day_id BIGINT UNSIGNED NOT NULL DEFAULT (COALESCE(message_id, UNIX_TIMESTAMP() * 1000000000))';

/** The callback attempts' partition column, added with their partitions. */
export const ATTEMPT_DAY_COLUMN =
  "ADD COLUMN day_id BIGINT UNSIGNED NOT NULL DEFAULT (IF(event_type = 'message', message_id, UNIX_TIMESTAMP() * 1000000000))";

/**
 * The request logs' partition column, added with their partitions. A DEFAULT sees a column
 * left to its own DEFAULT as NULL, so a row written without `created_at` takes the UTC time.
 */
export const LOG_DAY_COLUMN =
  "ADD COLUMN day_id BIGINT UNSIGNED NOT NULL DEFAULT (TIMESTAMPDIFF(MICROSECOND, '1970-01-01', COALESCE(created_at, UTC_TIMESTAMP(3))) * 1000)";

export type PartitionedTable = (typeof ALL_PARTITIONED_TABLES)[number]['table'];

/**
 * The unique keys each table trades for ones that include its partition column, and what
 * keeps the old rule: a message's UUID carries its id (messages/message-uuid.ts), so the
 * primary key keeps UUIDs apart; a fallback SMS is made under the fixed user_reference_id
 * `fallback-<chat uuid>`, unique in send_requests (not partitioned), so a chat message never
 * gets a second one; an event's, a receipt's and a callback attempt's ids are AUTO_INCREMENTs,
 * unique by themselves, so `(id, message_id)` and `(id, day_id)` keep ids apart as `(id)` did
 * (the primary key is the only unique key of delivery_reports and callback_attempts); a
 * request log's id is an AUTO_INCREMENT too, and its primary key its only unique key.
 */
const UNIQUE_KEY_CHANGES: Record<PartitionedTable, string[]> = {
  messages: [
    'DROP INDEX uq_messages_uuid',
    'ADD UNIQUE KEY uq_messages_uuid (uuid, id)',
    'DROP INDEX uq_messages_fallback_of',
    'ADD UNIQUE KEY uq_messages_fallback_of (fallback_of, id)',
  ],
  message_events: ['DROP PRIMARY KEY', 'ADD PRIMARY KEY (id, message_id)'],
  message_parts: [],
  delivery_reports: [REPORT_DAY_COLUMN, 'DROP PRIMARY KEY', 'ADD PRIMARY KEY (id, day_id)'],
  callback_attempts: [ATTEMPT_DAY_COLUMN, 'DROP PRIMARY KEY', 'ADD PRIMARY KEY (id, day_id)'],
  request_logs: [LOG_DAY_COLUMN, 'DROP PRIMARY KEY', 'ADD PRIMARY KEY (id, day_id)'],
};

/**
 * The search indexes, with the id they end on named: InnoDB appends the primary key to every
 * index anyway, but MariaDB merges the partitions of an index in order only on the columns it
 * names, and search and export read in (created_at, id) order. Without it each search sorts.
 */
const SEARCH_INDEXES = [
  ['ix_messages_account_created', 'account_id, created_at'],
  ['ix_messages_account_status_created', 'account_id, status, created_at'],
  ['ix_messages_account_channel_created', 'account_id, channel, created_at'],
  ['ix_messages_account_recipient_created', 'account_id, recipient, created_at'],
] as const;

/** Every key change a table takes with its partitions. */
export const KEY_CHANGES: Record<PartitionedTable, string[]> = {
  ...UNIQUE_KEY_CHANGES,
  messages: [
    ...UNIQUE_KEY_CHANGES.messages,
    ...SEARCH_INDEXES.flatMap(([name, columns]) => [
      `DROP INDEX ${name}`,
      `ADD INDEX ${name} (${columns}, id)`,
    ]),
  ],
};

/** The keys as they were before partitions (a migration's undo). */
export const KEYS_BEFORE: Record<PartitionedTable, string[]> = {
  messages: [
    'DROP INDEX uq_messages_uuid',
    'ADD UNIQUE KEY uq_messages_uuid (uuid)',
    'DROP INDEX uq_messages_fallback_of',
    'ADD UNIQUE KEY uq_messages_fallback_of (fallback_of)',
    ...SEARCH_INDEXES.flatMap(([name, columns]) => [`DROP INDEX ${name}`, `ADD INDEX ${name} (${columns})`]),
  ],
  message_events: ['DROP PRIMARY KEY', 'ADD PRIMARY KEY (id)'],
  message_parts: [],
  delivery_reports: ['DROP PRIMARY KEY', 'ADD PRIMARY KEY (id)', 'DROP COLUMN day_id'],
  callback_attempts: ['DROP PRIMARY KEY', 'ADD PRIMARY KEY (id)', 'DROP COLUMN day_id'],
  request_logs: ['DROP PRIMARY KEY', 'ADD PRIMARY KEY (id)', 'DROP COLUMN day_id'],
};

/** The database a partitioned table is in. */
export const databaseOf = (table: PartitionedTable): 'main' | 'notification' | 'log' =>
  ALL_PARTITIONED_TABLES.find((t) => t.table === table)!.db;

/** A partition: its name and the first id it no longer holds (null: MAXVALUE). */
export interface PartitionBound {
  name: string;
  lessThan: string | null;
}

export const firstIdOf = (ms: number): string => `${ms}000000`;
export const msOfId = (id: string): number => Number(id.slice(0, -6));
export const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** A partition's name as information_schema gives it, quoted for a statement. */
export const quoted = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/** p20261206: the UTC day a partition starts. */
export const partitionName = (startMs: number): string =>
  `p${new Date(startMs).toISOString().slice(0, 10).replace(/-/g, '')}`;

/**
 * Partitions of `spanDays` each, after the one ending at `fromMs`, until one ends past
 * `untilMs`: the days ahead to add. The first starts at `fromMs` (a bound already there).
 */
export function boundsAfter(fromMs: number, untilMs: number, spanDays: number): PartitionBound[] {
  const out: PartitionBound[] = [];
  for (let start = fromMs; start < untilMs; start += spanDays * DAY_MS)
    out.push({ name: partitionName(start), lessThan: firstIdOf(start + spanDays * DAY_MS) });
  return out;
}

/** Where the days ahead must reach: through `aheadDays` days after today (UTC). */
export const aheadUntil = (nowMs: number, aheadDays: number): number =>
  dayStart(nowMs) + (aheadDays + 1) * DAY_MS;

const definition = (b: PartitionBound) =>
  `PARTITION ${b.name} VALUES LESS THAN (${b.lessThan ?? 'MAXVALUE'})`;

const withCatchAll = (bounds: PartitionBound[]) =>
  [...bounds, { name: CATCH_ALL, lessThan: null }].map(definition).join(', ');

/**
 * The ALTER that partitions an unpartitioned table: its keys reworked and its rows cut
 * by `bounds` (then pmax), in one copy of the table. MariaDB rebuilds a table to partition it
 * (ALGORITHM=COPY); LOCK=SHARED lets reads go on while writes wait.
 */
export function partitionTableSql(table: PartitionedTable, bounds: PartitionBound[]): string {
  const key = ALL_PARTITIONED_TABLES.find((t) => t.table === table)!.key;
  const changes = [...KEY_CHANGES[table], 'ALGORITHM=COPY', 'LOCK=SHARED'];
  return `ALTER TABLE ${table} ${changes.join(', ')} PARTITION BY RANGE (${key}) (${withCatchAll(bounds)})`;
}

/** The ALTER that splits `bounds` off the catch-all (a metadata change while pmax is empty). */
export const addPartitionsSql = (table: PartitionedTable, bounds: PartitionBound[]): string =>
  `ALTER TABLE ${table} REORGANIZE PARTITION ${CATCH_ALL} INTO (${withCatchAll(bounds)})`;

/** The first partitions of a table made from `fromMs` (its oldest row's day) to `untilMs`. */
export const firstBounds = (fromMs: number, untilMs: number, spanDays: number): PartitionBound[] =>
  boundsAfter(dayStart(fromMs), Math.max(untilMs, dayStart(fromMs) + DAY_MS), spanDays);

/** The last planned bound of a partitioned table (the one before pmax), as epoch milliseconds. */
export function lastBoundMs(bounds: PartitionBound[]): number | undefined {
  const planned = bounds.filter((b) => b.lessThan !== null);
  return planned.length ? msOfId(planned[planned.length - 1].lessThan!) : undefined;
}
