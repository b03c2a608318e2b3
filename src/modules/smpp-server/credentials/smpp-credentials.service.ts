import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import { CommandError } from '../../../platform/cli/cli-errors.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import {
  SmppCredentialStore,
  type SmppCredential,
  type SmppCredentialChanges,
  type SmppMode,
} from './smpp-credential.store.js';

export class SmppCredentialError extends CommandError {}

/** SMPP 3.4 carries a password of at most 8 characters; letters and digits survive every ESME's config file. */
const PASSWORD_LENGTH = 8;
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
/** A system_id is a C-Octet String of at most 16 octets with its NUL: 15 printable characters. */
const SYSTEM_ID = /^[\x21-\x7e]{1,15}$/;

export const DEFAULT_MAX_BINDS = 4;
export const DEFAULT_TPS = 100;

export interface CreateSmppCredentialInput {
  username: string;
  systemId: string;
  mode?: SmppMode;
  allowedIps?: string[];
  maxBinds?: number;
  tps?: number;
}

export type UpdateSmppCredentialInput = Pick<SmppCredentialChanges, 'allowedIps' | 'maxBinds' | 'tps'>;

export function newSmppPassword(): string {
  let password = '';
  for (let i = 0; i < PASSWORD_LENGTH; i++)
    password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}

export function hashSmppPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** The operators' side of SMPP credentials (the `smpp credentials` commands). */
@Injectable()
export class SmppCredentialsService {
  constructor(
    private readonly store: SmppCredentialStore,
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
  ) {}

  /** The stored credential and, once only, its password. */
  async create(input: CreateSmppCredentialInput): Promise<{ credential: SmppCredential; password: string }> {
    const systemId = input.systemId;
    if (!SYSTEM_ID.test(systemId))
      throw new SmppCredentialError('system-id must be 1-15 printable characters without spaces');
    if (await this.store.findBySystemId(systemId))
      throw new SmppCredentialError(`system-id ${systemId} is taken`);
    const account = await this.accounts.findByUsername(input.username);
    if (!account) throw new SmppCredentialError(`no account named ${input.username}`);
    const mode = input.mode ?? 'live';
    // The key the credential's sends are made under: same account and mode, its secret never shown.
    const { apiKey } = await this.keys.create({ username: input.username, name: `SMPP ${systemId}`, mode });
    const password = newSmppPassword();
    const credential = await this.store.insert({
      accountId: account.id,
      apiKeyId: apiKey.id,
      systemId,
      passwordHash: await hashSmppPassword(password),
      mode,
      allowedIps: input.allowedIps?.length ? input.allowedIps : null,
      maxBinds: input.maxBinds ?? DEFAULT_MAX_BINDS,
      tps: input.tps ?? DEFAULT_TPS,
    });
    if (!credential) {
      await this.keys.revoke(apiKey.id);
      throw new SmppCredentialError(`system-id ${systemId} is taken`);
    }
    return { credential, password };
  }

  list(username?: string): Promise<SmppCredential[]> {
    return this.store.list(username);
  }

  async get(systemId: string): Promise<SmppCredential> {
    const found = await this.store.findBySystemId(systemId);
    if (!found) throw new SmppCredentialError(`no SMPP credential with system-id ${systemId}`);
    return found;
  }

  /** Revokes the credential and its key; binds already made are the caller's to kick. */
  async revoke(systemId: string): Promise<SmppCredential> {
    const c = await this.get(systemId);
    if (!c.revokedAt) {
      await this.store.update(c.id, { revokedAt: new Date() });
      await this.keys.revoke(c.apiKeyId);
    }
    return this.get(systemId);
  }

  async newPassword(systemId: string): Promise<{ credential: SmppCredential; password: string }> {
    const c = await this.get(systemId);
    if (c.revokedAt) throw new SmppCredentialError(`SMPP credential ${systemId} is revoked`);
    const password = newSmppPassword();
    await this.store.update(c.id, { passwordHash: await hashSmppPassword(password) });
    return { credential: await this.get(systemId), password };
  }

  async update(systemId: string, changes: UpdateSmppCredentialInput): Promise<SmppCredential> {
    const c = await this.get(systemId);
    if (c.revokedAt) throw new SmppCredentialError(`SMPP credential ${systemId} is revoked`);
    await this.store.update(c.id, changes);
    return this.get(systemId);
  }
}
