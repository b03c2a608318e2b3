import type { Account } from '../accounts/account.entity.js';
import type { ApiKey } from './api-key.entity.js';
import type { IpAllowList } from './auth/ip-allow-list.js';

/** A key as the guards use it: the key, its account and what was parsed when it was loaded. */
export interface ResolvedKey {
  key: ApiKey;
  account: Account;
  /** The key's allow list, parsed when the key was loaded; null accepts any address. */
  allowList: IpAllowList | null;
  /**
   * Changes whenever the account's password does (a digest of its hash, never the hash): a
   * remembered password check is honoured only while it matches, so a password changed from
   * another process (the CLI) voids remembered checks within the key cache's TTL.
   */
  passwordTag: string;
  /**
   * A sub-account's parent (null for a top-level account), read with the key: a suspended parent
   * suspends its sub-accounts' keys too, and its daily limit covers their spend.
   */
  parent?: Account | null;
}
