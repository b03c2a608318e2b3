import { CreateCoreTables1764000000000 } from './main/1764000000000-create-core-tables.js';

// Listed explicitly: ESM output has no glob loading, and the order is the schema's history.
export const MAIN_MIGRATIONS = [CreateCoreTables1764000000000];
export const LOG_MIGRATIONS: Function[] = [];
export const NOTIFICATION_MIGRATIONS: Function[] = [];
