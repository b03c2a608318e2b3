import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { CHANNELS, type Channel } from './channel.js';

/** Balance and price of one account on one channel. The balance always equals the sum of its ledger rows. */
@Entity('account_channels')
export class AccountChannel {
  @PrimaryColumn({ name: 'account_id', type: 'bigint', unsigned: true })
  accountId: string;

  @PrimaryColumn({ type: 'enum', enum: CHANNELS })
  channel: Channel;

  @Column({ type: 'decimal', precision: 20, scale: 6, default: '0' })
  balance: string;

  @Column({ name: 'cost_per_unit', type: 'decimal', precision: 20, scale: 6 })
  costPerUnit: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}
