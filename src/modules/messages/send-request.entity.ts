import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { CHANNELS, type Channel } from './channel.js';

/** One row per accepted send request. Its id is the api_reference. */
@Entity('send_requests')
@Index('uq_send_requests_reference', ['accountId', 'channel', 'testMode', 'userReferenceId'], {
  unique: true,
})
@Index('ix_send_requests_account_reference', ['accountId', 'userReferenceId'])
export class SendRequest {
  @PrimaryColumn({ type: 'bigint', unsigned: true })
  id: string;

  @Column({ name: 'account_id', type: 'bigint', unsigned: true })
  accountId: string;

  @Column({ name: 'api_key_id', type: 'bigint', unsigned: true })
  apiKeyId: string;

  /** Made with a test key: never handed to a provider, never charged, seen only by test keys. */
  @Column({ name: 'test_mode', type: 'boolean', default: false })
  testMode: boolean;

  @Column({ type: 'enum', enum: CHANNELS })
  channel: Channel;

  @Column({ type: 'varchar', length: 320 })
  sender: string;

  @Column({ type: 'text', nullable: true })
  subject: string | null;

  @Column({ type: 'mediumtext' })
  body: string;

  @Column({ name: 'reply_to', type: 'varchar', length: 320, nullable: true })
  replyTo: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  source: string | null;

  @Column({ name: 'callback_url', type: 'varchar', length: 2048, nullable: true })
  callbackUrl: string | null;

  @Column({ name: 'user_reference_id', type: 'varchar', length: 255, nullable: true })
  userReferenceId: string | null;

  /** SHA-256 of the canonical request, to tell a replay from a different request with the same reference. */
  @Column({ name: 'request_hash', type: 'binary', length: 32 })
  requestHash: Buffer;

  @Column({ name: 'recipient_count', type: 'int', unsigned: true })
  recipientCount: number;

  @Column({ name: 'accepted_count', type: 'int', unsigned: true })
  acceptedCount: number;

  @Column({ name: 'units_per_recipient', type: 'smallint', unsigned: true })
  unitsPerRecipient: number;

  @Column({ type: 'decimal', precision: 20, scale: 6 })
  cost: string;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** Set once the dispatch jobs are in Redis; the recovery sweep enqueues rows where it stays NULL. */
  @Index()
  @Column({ name: 'enqueued_at', type: 'datetime', precision: 3, nullable: true })
  enqueuedAt: Date | null;

  /** High-priority sends overtake queued normal ones. */
  @Column({ type: 'enum', enum: ['high', 'normal'], default: 'normal' })
  priority: 'high' | 'normal';

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  /** A scheduled send's time (as moved by a reschedule); NULL for a send made at once. */
  @Column({ name: 'send_at', type: 'datetime', precision: 3, nullable: true })
  sendAt: Date | null;

  /** send_at while some messages still wait for it; NULL once released. The due scanner reads its index. */
  @Index('ix_send_requests_due')
  @Column({ name: 'due_at', type: 'datetime', precision: 3, nullable: true })
  dueAt: Date | null;

  @Column({ name: 'validity_period', type: 'int', unsigned: true, nullable: true })
  validityPeriod: number | null;

  /** Not handed to a provider by then, a message ends EXPIRED (VALIDITY_PERIOD_ELAPSED), refunded. */
  @Column({ name: 'valid_until', type: 'datetime', precision: 3, nullable: true })
  validUntil: Date | null;

  /** Set by a cancel of the whole request: no worker starts handing its messages over. */
  @Column({ name: 'cancel_requested_at', type: 'datetime', precision: 3, nullable: true })
  cancelRequestedAt: Date | null;
}
