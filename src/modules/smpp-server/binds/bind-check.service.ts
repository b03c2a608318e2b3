import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import smpp from 'smpp';
import { AccountsService } from '../../accounts/accounts.service.js';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { IpAllowList } from '../../api-keys/auth/ip-allow-list.js';
import { SmppCredentialStore, type SmppCredential } from '../credentials/smpp-credential.store.js';
import { BindLockout } from './bind-lockout.service.js';

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
    const allow = IpAllowList.from(credential.allowedIps);
    if (!credential.revokedAt && allow && !allow.allows(address))
      return refuse(smpp.ESME_RBINDFAIL, 'address not allowed');
    const usable = await this.standing(credential);
    if (!usable.ok) return usable;
    await this.lockout.succeeded(systemId, address);
    return usable;
  }

  /**
   * Whether a credential may send now: not revoked, its account and the account's parent
   * active, its key not revoked. A bound session asks again while it submits, so a suspension
   * or a revocation ends binds already made; the parent travels in the sender so that the
   * parent's limits cover the sub-account's submits as they cover its HTTP sends.
   */
  async standing(credential: SmppCredential): Promise<BindCheck> {
    if (credential.revokedAt) return refuse(smpp.ESME_RBINDFAIL, 'credential revoked');
    const account = await this.accounts.findById(credential.accountId);
    if (!account || account.status !== 'active') return refuse(smpp.ESME_RBINDFAIL, 'account suspended');
    const parent = account.parentId ? await this.accounts.findById(account.parentId) : null;
    if (account.parentId && (!parent || parent.status !== 'active'))
      return refuse(smpp.ESME_RBINDFAIL, 'parent account suspended');
    const key = await this.keys.get(credential.apiKeyId).catch(() => null);
    if (!key || key.revokedAt) return refuse(smpp.ESME_RBINDFAIL, 'credential key revoked');
    return { ok: true, credential, auth: { key, account, parent } };
  }

  /** The credential as it stands now, by id (a bound session's second look, the segment sweep). */
  async standingOf(credentialId: number): Promise<BindCheck> {
    const credential = await this.store.findById(credentialId);
    return credential ? this.standing(credential) : refuse(smpp.ESME_RBINDFAIL, 'credential removed');
  }

  /** The credential's sender as the send pipeline sees it, outside a bind (the segment sweep); null when unusable. */
  async authFor(credentialId: number): Promise<{ credential: SmppCredential; auth: AuthContext } | null> {
    const now = await this.standingOf(credentialId);
    return now.ok ? { credential: now.credential, auth: now.auth } : null;
  }
}
