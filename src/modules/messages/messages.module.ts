import { Module } from '@nestjs/common';
import { ReadDataSourceModule } from '../../database/read-data-source.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { MessageMetrics } from './messages.metrics.js';
import { MessagePartsStore } from './message-parts.store.js';
import { MessageSearchStore } from './message-search.store.js';
import { MessageHistoryStore } from './message-history.store.js';
import { MessageLookupStore } from './message-lookup.store.js';
import { MessageStore } from './message.store.js';
import { MessageStateStore } from './message-state.store.js';
import { ScheduleStore } from './schedule.store.js';

/** Owns the message tables: every statement on them goes through its stores. */
@Module({
  // The search store reads through the lag-tolerant data source (DATABASE_READ_URL).
  imports: [ReadDataSourceModule, MetricsModule],
  providers: [
    MessageMetrics,
    MessageStore,
    MessageStateStore,
    MessageLookupStore,
    MessagePartsStore,
    ScheduleStore,
    MessageSearchStore,
    MessageHistoryStore,
  ],
  exports: [
    MessageMetrics,
    MessageStore,
    MessageStateStore,
    MessageLookupStore,
    MessagePartsStore,
    ScheduleStore,
    MessageSearchStore,
    MessageHistoryStore,
  ],
})
export class MessagesModule {}
