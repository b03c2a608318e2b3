import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import smpp from 'smpp';
import { AccountsService } from '../../accounts/accounts.service.js';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { IpAllowList } from '../../api-keys/auth/ip-allow-list.js';
import { SmppCredentialStore, type SmppCredential } from '../credentials/smpp-credential.store.js';
import { BindLockout } from './bind-lockout.js';

export type BindCheck =
  { ok: true; credential: SmppCredential; auth: AuthContext } | { ok: false; status: number; why: string };

const refuse = (status: number, why: string): BindCheck => ({ ok: false, status, why });

/**
 * Who a bind_* PDU is: the credential by system_id, its password against the argon2 hash, the
 * address against its allow list, the credential and its account (and parent) still usable.
 * Unknown system_ids and wrong passwords count toward the (system_id, address) lockout.
 */
@Injectable()
export class BindChecker {
  constructor(
    private readonly store: SmppCredentialStore,
    private readonly lockout: BindLockout,
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
  ) {}

  async check(systemId: string, password: string, address: string): Promise<BindCheck> {
    if (await this.lockout.locked(systemId, address))
      return refuse(smpp.ESME_RBINDFAIL, 'too many failed binds from this address');
    const found = systemId ? await this.store.findForBind(systemId) : null;
    if (!found) {
      await this.lockout.failed(systemId, address);
      return refuse(smpp.errors.ESME_RINVSYSID!, 'unknown system_id');
    }
    const { passwordHash, ...credential } = found;
    if (!(await argon2.verify(passwordHash, password).catch(() => false))) {
      await this.lockout.failed(systemId, address);
      return refuse(smpp.ESME_RINVPASWD, 'wrong password');
    }
    if (credential.revokedAt) return refuse(smpp.ESME_RBINDFAIL, 'credential revoked');
    const allow = IpAllowList.from(credential.allowedIps);
    if (allow && !allow.allows(address)) return refuse(smpp.ESME_RBINDFAIL, 'address not allowed');
    const account = await this.accounts.findById(credential.accountId);
    if (!account || account.status !== 'active') return refuse(smpp.ESME_RBINDFAIL, 'account suspended');
    if (account.parentId) {
      const parent = await this.accounts.findById(account.parentId);
      if (!parent || parent.status !== 'active')
        return refuse(smpp.ESME_RBINDFAIL, 'parent account suspended');
    }
    const key = await this.keys.get(credential.apiKeyId).catch(() => null);
    if (!key || key.revokedAt) return refuse(smpp.ESME_RBINDFAIL, 'credential key revoked');
    await this.lockout.succeeded(systemId, address);
    return { ok: true, credential, auth: { key, account } };
  }

  /** The credential's sender as the send pipeline sees it, outside a bind (the segment sweep); null when unusable. */
  async authFor(credentialId: number): Promise<{ credential: SmppCredential; auth: AuthContext } | null> {
    const credential = await this.store.findById(credentialId);
    if (!credential || credential.revokedAt) return null;
    const account = await this.accounts.findById(credential.accountId);
    const key = await this.keys.get(credential.apiKeyId).catch(() => null);
    return account && key ? { credential, auth: { key, account } } : null;
  }
}
