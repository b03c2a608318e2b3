import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id: string;

  @Index()
  @Column({ name: 'account_id', type: 'bigint', unsigned: true })
  accountId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** SHA-256 of the key: the key itself is high-entropy, so a fast hash is enough and lookups stay cheap. */
  @Column({ name: 'key_hash', type: 'binary', length: 32, unique: true, select: false })
  keyHash: Buffer;

  /** The first characters of the key, to tell keys apart in listings without storing them. */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  /** `test`: requests are stored and answered as live ones but reach no provider and cost nothing. */
  @Column({ type: 'enum', enum: KEY_MODES, default: 'live' })
  mode: KeyMode;

  @Column({ name: 'allowed_ips', type: 'json', nullable: true })
  allowedIps: string[] | null;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'rate_limit', type: 'int', unsigned: true, nullable: true })
  rateLimit: number | null;

  @Column({ name: 'rate_window_seconds', type: 'int', unsigned: true, nullable: true })
  rateWindowSeconds: number | null;

  /** The most this key may spend per UTC day, in the account's currency; null: no limit. */
  @Column({ name: 'daily_limit', type: 'decimal', precision: 20, scale: 6, nullable: true })
  dailyLimit: string | null;
  /** The priority of this key's sends when a request names none (null: normal). */
  @Column({ type: 'enum', enum: ['high', 'normal'], nullable: true })
  priority: 'high' | 'normal' | null;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'datetime', precision: 3, nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}
