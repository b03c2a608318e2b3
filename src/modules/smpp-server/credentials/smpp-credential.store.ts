import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export type SmppMode = 'live' | 'test';

/** An smpp_credentials row, as the server and the CLI read it (the hash only where asked for). */
export interface SmppCredential {
  id: number;
  accountId: string;
  /** The API key its sends are made under (created with the credential; its secret is never shown). */
  apiKeyId: string;
  systemId: string;
  mode: SmppMode;
  /** CIDRs or addresses a bind may come from; null: any. */
  allowedIps: string[] | null;
  maxBinds: number;
  tps: number;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The owning account's username. */
  username: string;
}

export type NewSmppCredential = Pick<
  SmppCredential,
  'accountId' | 'apiKeyId' | 'systemId' | 'mode' | 'allowedIps' | 'maxBinds' | 'tps'
> & { passwordHash: string };

export type SmppCredentialChanges = Partial<
  Pick<SmppCredential, 'allowedIps' | 'maxBinds' | 'tps' | 'revokedAt'> & { passwordHash: string }
>;

interface Row {
  id: number;
  account_id: string;
  api_key_id: string;
  system_id: string;
  mode: SmppMode;
  allowed_ips: string | string[] | null;
  max_binds: number;
  tps: number;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
  username: string;
  password_hash?: string;
}

const SELECT = `SELECT c.id, c.account_id, c.api_key_id, c.system_id, c.mode, c.allowed_ips, c.max_binds, c.tps,
  c.revoked_at, c.created_at, c.updated_at, a.username
  FROM smpp_credentials c JOIN accounts a ON a.id = c.account_id`;

function toCredential(r: Row): SmppCredential {
  // MariaDB's JSON is LONGTEXT: the driver hands it over as text.
  const ips = typeof r.allowed_ips === 'string' ? (JSON.parse(r.allowed_ips) as string[]) : r.allowed_ips;
  return {
    id: Number(r.id),
    accountId: String(r.account_id),
    apiKeyId: String(r.api_key_id),
    systemId: r.system_id,
    mode: r.mode,
    allowedIps: ips && ips.length ? ips : null,
    maxBinds: Number(r.max_binds),
    tps: Number(r.tps),
    revokedAt: r.revoked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    username: r.username,
  };
}

/** Every statement on smpp_credentials. */
@Injectable()
export class SmppCredentialStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Inserts the credential; null when its system_id is taken. */
  async insert(c: NewSmppCredential): Promise<SmppCredential | null> {
    try {
      await this.ds.query(
        `INSERT INTO smpp_credentials (account_id, api_key_id, system_id, password_hash, mode, allowed_ips, max_binds, tps)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          c.accountId,
          c.apiKeyId,
          c.systemId,
          c.passwordHash,
          c.mode,
          c.allowedIps?.length ? JSON.stringify(c.allowedIps) : null,
          c.maxBinds,
          c.tps,
        ],
      );
    } catch (err) {
      if ((err as { errno?: number }).errno === 1062) return null;
      throw err;
    }
    return this.findBySystemId(c.systemId);
  }

  async findBySystemId(systemId: string): Promise<SmppCredential | null> {
    const rows = (await this.ds.query(`${SELECT} WHERE c.system_id = ?`, [systemId])) as Row[];
    return rows[0] ? toCredential(rows[0]) : null;
  }

  async findById(id: number): Promise<SmppCredential | null> {
    const rows = (await this.ds.query(`${SELECT} WHERE c.id = ?`, [id])) as Row[];
    return rows[0] ? toCredential(rows[0]) : null;
  }

  /** The credential with its password hash, for a bind. */
  async findForBind(systemId: string): Promise<(SmppCredential & { passwordHash: string }) | null> {
    const rows = (await this.ds.query(
      `${SELECT.replace('a.username', 'a.username, c.password_hash')} WHERE c.system_id = ?`,
      [systemId],
    )) as Row[];
    const r = rows[0];
    return r ? { ...toCredential(r), passwordHash: r.password_hash! } : null;
  }

  /** Oldest first; of one account with `username`. */
  async list(username?: string): Promise<SmppCredential[]> {
    const rows = (await (username
      ? this.ds.query(`${SELECT} WHERE a.username = ? ORDER BY c.id`, [username])
      : this.ds.query(`${SELECT} ORDER BY c.id`))) as Row[];
    return rows.map(toCredential);
  }

  async update(id: number, changes: SmppCredentialChanges): Promise<void> {
    const columns: Array<[string, unknown]> = [];
    if (changes.allowedIps !== undefined)
      columns.push(['allowed_ips', changes.allowedIps?.length ? JSON.stringify(changes.allowedIps) : null]);
    if (changes.maxBinds !== undefined) columns.push(['max_binds', changes.maxBinds]);
    if (changes.tps !== undefined) columns.push(['tps', changes.tps]);
    if (changes.revokedAt !== undefined) columns.push(['revoked_at', changes.revokedAt]);
    if (changes.passwordHash !== undefined) columns.push(['password_hash', changes.passwordHash]);
    if (!columns.length) return;
    await this.ds.query(
      `UPDATE smpp_credentials SET ${columns.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`,
      [...columns.map(([, v]) => v), id],
    );
  }
}
