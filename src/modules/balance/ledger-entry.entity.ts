import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CHANNELS, type Channel } from '../messages/channel.js';

/** A transfer moves credit between a parent and a sub-account: two rows, one per account, naming it. */
export type LedgerKind = 'topup' | 'charge' | 'refund' | 'transfer';

/** Every movement of money. Charges are negative; a message is refunded at most once (unique key). */
@Entity('ledger_entries')
@Index('ix_ledger_account_channel', ['accountId', 'channel'])
@Index('uq_ledger_refund_once', ['kind', 'messageId'], { unique: true })
export class LedgerEntry {
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id: string;

  @Column({ name: 'account_id', type: 'bigint', unsigned: true })
  accountId: string;

  @Column({ type: 'enum', enum: CHANNELS })
  channel: Channel;

  @Column({ type: 'enum', enum: ['topup', 'charge', 'refund', 'transfer'] })
  kind: LedgerKind;

  @Column({ type: 'decimal', precision: 20, scale: 6 })
  amount: string;

  @Index()
  @Column({ name: 'send_request_id', type: 'bigint', unsigned: true, nullable: true })
  sendRequestId: string | null;

  @Column({ name: 'message_id', type: 'bigint', unsigned: true, nullable: true })
  messageId: string | null;

  @Column({ name: 'transfer_id', type: 'bigint', unsigned: true, nullable: true })
  transferId: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  note: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;
}
