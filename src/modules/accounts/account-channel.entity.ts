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

  /** A sub-account's channel that has no price of its own: it pays its parent's (cost_per_unit is then unused). */
  @Column({ name: 'price_inherited', type: 'boolean', default: false })
  priceInherited: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}
