import { describe, expect, it } from 'vitest';
import {
  addPartitionsSql,
  aheadUntil,
  boundsAfter,
  DAY_MS,
  firstBounds,
  lastBoundMs,
  partitionTableSql,
} from './day-partitions.js';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe('day partitions', () => {
  it('cuts at the first id of each UTC day and names each partition by the day it starts', () => {
    expect(boundsAfter(day('2026-12-06'), day('2026-12-08'), 1)).toEqual([
      { name: 'p20261206', lessThan: `${day('2026-12-07')}000000` },
      { name: 'p20261207', lessThan: `${day('2026-12-08')}000000` },
    ]);
  });

  it('covers spans of several days when asked', () => {
    const b = boundsAfter(day('2026-12-06'), day('2026-12-13'), 3);
    expect(b.map((x) => x.name)).toEqual(['p20261206', 'p20261209', 'p20261212']);
    expect(lastBoundMs(b)).toBe(day('2026-12-15'));
  });

  it('reaches through the days ahead, today included', () => {
    const now = day('2026-12-06') + 13 * 3_600_000;
    expect(aheadUntil(now, 7)).toBe(day('2026-12-14'));
    expect(firstBounds(now, aheadUntil(now, 0), 1).map((b) => b.name)).toEqual(['p20261206']);
    expect(firstBounds(day('2026-12-01') + 5, aheadUntil(now, 1), 1)).toHaveLength(7);
    expect(lastBoundMs([{ name: 'pmax', lessThan: null }])).toBeUndefined();
    expect(DAY_MS).toBe(86_400_000);
  });

  it('writes the ALTERs with the catch-all last and the unique keys reworked', () => {
    const b = boundsAfter(day('2026-12-06'), day('2026-12-07'), 1);
    expect(partitionTableSql('messages', b)).toBe(
      'ALTER TABLE messages DROP INDEX uq_messages_uuid, ADD UNIQUE KEY uq_messages_uuid (uuid, id), ' +
        'DROP INDEX uq_messages_fallback_of, ADD UNIQUE KEY uq_messages_fallback_of (fallback_of, id), ' +
        'DROP INDEX ix_messages_account_created, ADD INDEX ix_messages_account_created (account_id, created_at, id), ' +
        'DROP INDEX ix_messages_account_status_created, ADD INDEX ix_messages_account_status_created (account_id, status, created_at, id), ' +
        'DROP INDEX ix_messages_account_channel_created, ADD INDEX ix_messages_account_channel_created (account_id, channel, created_at, id), ' +
        'DROP INDEX ix_messages_account_recipient_created, ADD INDEX ix_messages_account_recipient_created (account_id, recipient, created_at, id), ' +
        'ALGORITHM=COPY, LOCK=SHARED PARTITION BY RANGE (id) ' +
        `(PARTITION p20261206 VALUES LESS THAN (${day('2026-12-07')}000000), PARTITION pmax VALUES LESS THAN (MAXVALUE))`,
    );
    expect(partitionTableSql('delivery_reports', b)).toBe(
      'ALTER TABLE delivery_reports ADD COLUMN day_id BIGINT UNSIGNED NOT NULL ' +
        'DEFAULT (COALESCE(message_id, UNIX_TIMESTAMP() * 1000000000)), ' +
        'DROP PRIMARY KEY, ADD PRIMARY KEY (id, day_id), ALGORITHM=COPY, LOCK=SHARED PARTITION BY RANGE (day_id) ' +
        `(PARTITION p20261206 VALUES LESS THAN (${day('2026-12-07')}000000), PARTITION pmax VALUES LESS THAN (MAXVALUE))`,
    );
    expect(partitionTableSql('callback_attempts', b)).toBe(
      'ALTER TABLE callback_attempts ADD COLUMN day_id BIGINT UNSIGNED NOT NULL ' +
        "DEFAULT (IF(event_type = 'message', message_id, UNIX_TIMESTAMP() * 1000000000)), " +
        'DROP PRIMARY KEY, ADD PRIMARY KEY (id, day_id), ALGORITHM=COPY, LOCK=SHARED PARTITION BY RANGE (day_id) ' +
        `(PARTITION p20261206 VALUES LESS THAN (${day('2026-12-07')}000000), PARTITION pmax VALUES LESS THAN (MAXVALUE))`,
    );
    expect(partitionTableSql('request_logs', b)).toBe(
      'ALTER TABLE request_logs ADD COLUMN day_id BIGINT UNSIGNED NOT NULL ' +
        "DEFAULT (TIMESTAMPDIFF(MICROSECOND, '1970-01-01', COALESCE(created_at, UTC_TIMESTAMP(3))) * 1000), " +
        'DROP PRIMARY KEY, ADD PRIMARY KEY (id, day_id), ALGORITHM=COPY, LOCK=SHARED PARTITION BY RANGE (day_id) ' +
        `(PARTITION p20261206 VALUES LESS THAN (${day('2026-12-07')}000000), PARTITION pmax VALUES LESS THAN (MAXVALUE))`,
    );
    expect(addPartitionsSql('message_parts', b)).toMatch(
      /^ALTER TABLE message_parts REORGANIZE PARTITION pmax INTO \(PARTITION p20261206 .*, PARTITION pmax VALUES LESS THAN \(MAXVALUE\)\)$/,
    );
  });
});
