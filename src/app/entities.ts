import { AccountChannel } from '../modules/accounts/account-channel.entity.js';
import { Account } from '../modules/accounts/account.entity.js';
import { ApiKey } from '../modules/api-keys/api-key.entity.js';

/**
 * The entity classes of the main database, from the features that own them. A table has an
 * entity only where its store reads it through TypeORM's repositories (accounts, their
 * channels, API keys); the others are written in SQL in their stores, with a row type there,
 * and their columns are declared once, in the migrations. The log and notification databases have none.
 */
export const MAIN_ENTITIES = [Account, ApiKey, AccountChannel];
