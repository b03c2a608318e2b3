import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type AccountStatus = 'active' | 'suspended';

/** A send window as stored: local times HH:MM and the days it opens on (null: every day). */
export interface AccountSendWindow {
  from: string;
  to: string;
  days: string[] | null;
}

@Entity('accounts')
export class Account {
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id: string;

  /** The reseller account this one belongs to; null for a top-level account. One level only. */
  @Column({ name: 'parent_id', type: 'bigint', unsigned: true, nullable: true })
  parentId: string | null;

  @Column({ name: 'client_id', type: 'char', length: 36, unique: true })
  clientId: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  /** A display name (a reseller's name for its client); null when none was given. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name: string | null;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ type: 'enum', enum: ['active', 'suspended'], default: 'active' })
  status: AccountStatus;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** The most the account's live keys together may spend per UTC day; null: no limit. */
  @Column({ name: 'daily_limit', type: 'decimal', precision: 20, scale: 6, nullable: true })
  dailyLimit: string | null;

  @Column({ name: 'callback_secret', type: 'varchar', length: 128, select: false })
  callbackSecret: string;

  /** SMS smart encoding for sends that do not say (`accounts set --smart-encoding on|off`). */
  @Column({ name: 'smart_encoding', type: 'boolean', default: false })
  smartEncoding: boolean;

  /** Receives the state changes of every channel's messages whose request names no callback_url. */
  @Column({ name: 'status_callback_url', type: 'varchar', length: 2048, nullable: true })
  statusCallbackUrl: string | null;

  /** When its messages may go out, in each recipient's local time (`accounts send-window`); null: any time. */
  @Column({
    name: 'send_window',
    type: 'varchar',
    length: 200,
    nullable: true,
    transformer: {
      to: (w: AccountSendWindow | null | undefined) => (w ? JSON.stringify(w) : w),
      from: (v: string | null) => (v ? (JSON.parse(v) as AccountSendWindow) : null),
    },
  })
  sendWindow: AccountSendWindow | null;

  /** IANA zone of its e-mail recipients' send window (and of numbers of no known country). */
  @Column({ name: 'time_zone', type: 'varchar', length: 64, default: 'UTC' })
  timeZone: string;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}
