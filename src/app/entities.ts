import { AccountChannel } from '../modules/accounts/account-channel.entity.js';
import { Account } from '../modules/accounts/account.entity.js';
import { ApiKey } from '../modules/api-keys/api-key.entity.js';
import { LedgerEntry } from '../modules/balance/ledger-entry.entity.js';
import { Message } from '../modules/messages/message.entity.js';
import { SendRequest } from '../modules/messages/send-request.entity.js';

/** The entity classes of the main database, from the features that own them. The log and notification databases have none. */
export const MAIN_ENTITIES = [Account, ApiKey, AccountChannel, LedgerEntry, SendRequest, Message];
