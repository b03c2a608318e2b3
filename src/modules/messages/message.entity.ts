import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { CHANNELS, MESSAGE_STATUSES, type Channel, type MessageStatus } from './channel.js';

/** One row per recipient of a send request; body and sender live on the request. */
@Entity('messages')
@Index('ix_messages_request', ['sendRequestId'])
@Index('ix_messages_account_created', ['accountId', 'createdAt'])
@Index('ix_messages_status_sent_request', ['status', 'sentAt', 'sendRequestId'])
@Index('ix_messages_account_status_created', ['accountId', 'status', 'createdAt'])
@Index('ix_messages_account_channel_created', ['accountId', 'channel', 'createdAt'])
@Index('ix_messages_account_recipient_created', ['accountId', 'recipient', 'createdAt'])
export class Message {
  /** Numeric, time-ordered; the e-mail message_id. */
  @PrimaryColumn({ type: 'bigint', unsigned: true })
  id: string;

  /** UUIDv7; the SMS message_id. */
  @Column({ type: 'char', length: 36, unique: true, charset: 'ascii', collation: 'ascii_bin' })
  uuid: string;

  @Column({ name: 'send_request_id', type: 'bigint', unsigned: true })
  sendRequestId: string;

  @Column({ name: 'account_id', type: 'bigint', unsigned: true })
  accountId: string;

  @Column({ type: 'enum', enum: CHANNELS })
  channel: Channel;

  @Column({ type: 'varchar', length: 320 })
  recipient: string;

  @Column({ type: 'enum', enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @Column({ type: 'varchar', length: 64, nullable: true })
  reason: string | null;

  @Column({ type: 'smallint', unsigned: true })
  units: number;

  @Column({ type: 'decimal', precision: 20, scale: 6 })
  cost: string;

  @Index()
  @Column({ name: 'provider_message_id', type: 'varchar', length: 128, nullable: true })
  providerMessageId: string | null;

  /** The SMSC link (connector) an SMS went out on. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  connector: string | null;

  @Column({ type: 'tinyint', unsigned: true, default: 0 })
  attempts: number;

  /** Reason code of the last failed hand-over attempt (kept after a later success). */
  @Column({ name: 'last_error', type: 'varchar', length: 64, nullable: true })
  lastError: string | null;

  @Column({ name: 'last_attempt_at', type: 'datetime', precision: 3, nullable: true })
  lastAttemptAt: Date | null;

  /** Set while a worker hands the message over: a cancel or a validity expiry leaves it alone. */
  @Column({ name: 'claimed_at', type: 'datetime', precision: 3, nullable: true })
  claimedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'datetime', precision: 3, nullable: true })
  sentAt: Date | null;

  @Column({ name: 'completed_at', type: 'datetime', precision: 3, nullable: true })
  completedAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}
