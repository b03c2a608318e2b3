import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import {
  LOG_DB,
  NOTIFICATION_DB,
  logDataSourceOptions,
  mainDataSourceOptions,
  notificationDataSourceOptions,
  openDataSource,
} from './data-sources.js';

/** The three databases, each created and migrated at start. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => mainDataSourceOptions(c),
      dataSourceFactory: async (options) => openDataSource(options!, dbOf(options!)),
    }),
    TypeOrmModule.forRootAsync({
      name: LOG_DB,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => logDataSourceOptions(c),
      dataSourceFactory: async (options) => openDataSource(options!, dbOf(options!)),
    }),
    TypeOrmModule.forRootAsync({
      name: NOTIFICATION_DB,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => notificationDataSourceOptions(c),
      dataSourceFactory: async (options) => openDataSource(options!, dbOf(options!)),
    }),
  ],
})
export class DatabaseModule {}

function dbOf(options: object) {
  const o = options as { host: string; port: number; username: string; password: string; database: string };
  return { host: o.host, port: o.port, username: o.username, password: o.password, database: o.database };
}
