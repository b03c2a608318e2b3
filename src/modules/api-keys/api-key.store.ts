import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { ApiKey } from './api-key.entity.js';

/** A new key's row, before the database gives it an id. */
export type NewApiKey = Omit<ApiKey, 'id' | 'createdAt' | 'updatedAt'>;

/** Every statement on api_keys (a key's account is joined where a presented key is looked up). */
@Injectable()
export class ApiKeyStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Inserts the key and reads it back with its defaults. */
  async insert(fields: NewApiKey): Promise<ApiKey> {
    const repo = this.ds.getRepository(ApiKey);
    const apiKey = repo.create(fields);
    await repo.insert(apiKey);
    return repo.findOneByOrFail({ id: apiKey.id });
  }

  /** Keys with their account's username, oldest first; of one account with `username`. */
  async list(username?: string): Promise<Array<ApiKey & { username: string }>> {
    const qb = this.ds
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .innerJoin(Account, 'a', 'a.id = k.accountId')
      .addSelect('a.username', 'username')
      .orderBy('k.id', 'ASC');
    if (username) qb.where('a.username = :username', { username });
    const { entities, raw } = await qb.getRawAndEntities<{ username: string }>();
    return entities.map((k, i) => Object.assign(k, { username: raw[i].username }));
  }

  findById(id: string): Promise<ApiKey | null> {
    return this.ds.getRepository(ApiKey).findOne({ where: { id } });
  }

  /** Changes a key that is not revoked; answers whether it was. */
  async updateLive(id: string, changes: Partial<ApiKey>): Promise<boolean> {
    const res = await this.ds.getRepository(ApiKey).update({ id, revokedAt: IsNull() }, changes);
    return res.affected === 1;
  }

  async update(id: string, changes: Partial<ApiKey>): Promise<void> {
    await this.ds.getRepository(ApiKey).update({ id }, changes);
  }

  /**
   * Moves each key's last-used time forward to the given time, never back (processes flush in
   * any order); the key's updated_at stays, since being used is not a change to the key.
   */
  async touchLastUsed(uses: ReadonlyArray<readonly [keyId: string, at: Date]>): Promise<void> {
    const cases = uses.map(() => 'WHEN ? THEN ?').join(' ');
    await this.ds.query(
      `UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, '1970-01-01'), CASE id ${cases} END),
       updated_at = updated_at WHERE id IN (${uses.map(() => '?').join(', ')})`,
      [...uses.flatMap(([id, at]) => [id, at]), ...uses.map(([id]) => id)],
    );
  }

  /** The rate limits of an account's keys that still work (null: the default), for its sub-accounts' keys' ceiling. */
  async rateLimitsOf(accountId: string): Promise<Array<{ limit: number; windowSeconds: number } | null>> {
    const rows = (await this.ds.query(
      `SELECT rate_limit, rate_window_seconds FROM api_keys
        WHERE account_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > NOW(3))`,
      [accountId],
    )) as Array<{ rate_limit: number | null; rate_window_seconds: number | null }>;
    return rows.map((r) =>
      r.rate_limit && r.rate_window_seconds
        ? { limit: Number(r.rate_limit), windowSeconds: Number(r.rate_window_seconds) }
        : null,
    );
  }

  /** The key whose hash this is, with its account and the account's password hash (never loaded by default). */
  findByHash(hash: Buffer): Promise<(ApiKey & { account: Account }) | null> {
    return this.ds
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .addSelect('k.keyHash')
      .innerJoinAndMapOne('k.account', Account, 'a', 'a.id = k.accountId')
      .addSelect('a.passwordHash')
      .where('k.keyHash = :hash', { hash })
      .getOne() as Promise<(ApiKey & { account: Account }) | null>;
  }
}
