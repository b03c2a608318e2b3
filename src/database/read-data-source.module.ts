import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { readDataSourceOptions } from './data-sources.js';

export const READ_DB = 'read';
const READ_TOKEN = getDataSourceToken(READ_DB);

/**
 * The data source of reads that may lag behind the writes by a moment: message search, export
 * and request summaries (MessageSearchStore). With DATABASE_READ_URL it is a pool of its own on
 * that server (an asynchronous replica, or another Galera node), opened without migrating it;
 * without, it is the main data source itself. Money, idempotency and state changes read the
 * main database only: they never inject this one.
 */
@Module({
  providers: [
    {
      provide: READ_TOKEN,
      inject: [APP_CONFIG, getDataSourceToken()],
      useFactory: async (c: AppConfig, main: DataSource) =>
        c.readDatabase ? new DataSource(readDataSourceOptions(c.readDatabase, 10)).initialize() : main,
    },
  ],
  exports: [READ_TOKEN],
})
export class ReadDataSourceModule implements OnApplicationShutdown {
  constructor(
    @Inject(READ_TOKEN) private readonly read: DataSource,
    @Inject(getDataSourceToken()) private readonly main: DataSource,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.read !== this.main && this.read.isInitialized) await this.read.destroy();
  }
}
