import { Logger, Module } from '@nestjs/common';
import { openDataSource } from './data-sources.js';
import { databaseImports } from './typeorm-imports.js';

const logger = new Logger('Database');

/** The three databases, each created and migrated at start (the API and the workers). */
@Module({
  imports: databaseImports(
    (options, db, waitSeconds) => openDataSource(options, db, waitSeconds, logger),
    false,
  ),
})
export class DatabaseModule {}
