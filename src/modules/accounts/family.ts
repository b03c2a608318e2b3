import type { Account } from './account.entity.js';

/**
 * The account at the top of an account's family: its parent for a sub-account, else itself. A
 * parent and its sub-accounts are one tenant for what tenants share (export slots, the test
 * quota, the template quota, the wrong-password budget), so those are keyed by it.
 */
export function familyRoot(account: Pick<Account, 'id' | 'parentId'>): string {
  return String(account.parentId ?? account.id);
}
