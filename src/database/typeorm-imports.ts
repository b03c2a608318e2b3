import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { APP_CONFIG, type AppConfig, type DatabaseConfig } from '../config/config.js';
import {
  type Entities,
  LOG_DB,
  NOTIFICATION_DB,
  logDataSourceOptions,
  mainDataSourceOptions,
  notificationDataSourceOptions,
} from './data-sources.js';

/** The data source options plus what the factory needs from the configuration. */
type FactoryOptions = DataSourceOptions & { startupWaitSeconds: number };
export type Opener = (
  options: DataSourceOptions,
  db: DatabaseConfig,
  waitSeconds: number,
) => Promise<DataSource>;

export function databaseImports(open: Opener, manualInitialization: boolean, mainEntities: Entities) {
  const forDb = (name: string | undefined, options: (c: AppConfig) => DataSourceOptions) =>
    TypeOrmModule.forRootAsync({
      ...(name ? { name } : {}),
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) =>
        ({
          ...options(c),
          startupWaitSeconds: c.startupWaitSeconds,
          // Start-up waits for MySQL itself, one line per retry: TypeORM's own retry would
          // log a stack trace per attempt.
          toRetry: () => false,
          manualInitialization,
        }) as unknown as TypeOrmModuleOptions,
      dataSourceFactory: async (raw) => {
        const { startupWaitSeconds, ...options } = raw as unknown as FactoryOptions;
        return open(options as DataSourceOptions, dbOf(options), startupWaitSeconds);
      },
    });
  return [
    forDb(undefined, (c) => mainDataSourceOptions(c, mainEntities)),
    forDb(LOG_DB, logDataSourceOptions),
    forDb(NOTIFICATION_DB, notificationDataSourceOptions),
  ];
}

function dbOf(options: object): DatabaseConfig {
  const o = options as { host: string; port: number; username: string; password: string; database: string };
  return { host: o.host, port: o.port, username: o.username, password: o.password, database: o.database };
}
