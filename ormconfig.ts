import { DataSource } from 'typeorm';
import { MAIN_ENTITIES } from './src/app/entities.js';
import { loadConfig } from './src/config/config.js';
import { mainDataSourceOptions } from './src/database/data-sources.js';

// The main data source, for the TypeORM CLI (npm run migration:generate | migration:run | migration:revert).
export default new DataSource(mainDataSourceOptions(loadConfig(), MAIN_ENTITIES));
