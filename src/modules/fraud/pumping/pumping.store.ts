import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** An account's pumping-guard settings; an account without a row has these defaults. */
export interface PumpingSettings {
  /** Would-be blocks are logged and counted, nothing is refused. */
  monitor: boolean;
  /** Numbers (digits) the guard never blocks. */
  safeList: string[];
}

export const DEFAULT_PUMPING_SETTINGS: PumpingSettings = { monitor: false, safeList: [] };

/** Every statement on pumping_settings. */
@Injectable()
export class PumpingStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async settings(accountId: string): Promise<PumpingSettings> {
    const [row] = (await this.ds.query(
      'SELECT monitor, safe_list FROM pumping_settings WHERE account_id = ?',
      [accountId],
    )) as Array<{ monitor: number; safe_list: string }>;
    if (!row) return { ...DEFAULT_PUMPING_SETTINGS, safeList: [] };
    return { monitor: row.monitor === 1, safeList: JSON.parse(row.safe_list) as string[] };
  }

  async save(accountId: string, s: PumpingSettings, at = new Date()): Promise<void> {
    await this.ds.query(
      `INSERT INTO pumping_settings (account_id, monitor, safe_list, updated_at) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE monitor = VALUES(monitor), safe_list = VALUES(safe_list), updated_at = VALUES(updated_at)`,
      [accountId, s.monitor ? 1 : 0, JSON.stringify(s.safeList), at],
    );
  }
}
