import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LOG_DB } from '../../database/data-sources.js';

const COLUMNS = [
  'id',
  'api_key_id',
  'account_id',
  'method',
  'path',
  'status',
  'repeat_count',
  'ip',
  'user_agent',
  'duration_ms',
  'api_reference',
  'request_id',
  'created_at',
] as const;

export type RequestLogRow = Partial<Record<(typeof COLUMNS)[number], unknown>>;

/**
 * Reads a key's request logs for `keys logs`. It asks information_schema which of the expected
 * columns the log database has, and answers an empty list while the table is missing.
 */
@Injectable()
export class RequestLogStore {
  constructor(@InjectDataSource(LOG_DB) private readonly logDs: DataSource) {}

  async forKey(apiKeyId: string, limit: number): Promise<RequestLogRow[]> {
    const found = (await this.logDs.query(
      `SELECT LOWER(column_name) AS name FROM information_schema.columns
       WHERE table_schema = DATABASE() AND table_name = 'request_logs'`,
    )) as Array<{ name: string }>;
    const present = new Set(found.map((c) => c.name));
    if (!present.has('api_key_id')) return [];
    const columns = COLUMNS.filter((c) => present.has(c));
    const order = ['created_at', 'id'].filter((c) => present.has(c)).map((c) => `\`${c}\` DESC`);
    const rows = (await this.logDs.query(
      `SELECT ${columns.map((c) => `\`${c}\``).join(', ')} FROM request_logs WHERE api_key_id = ?
       ${order.length ? `ORDER BY ${order.join(', ')}` : ''} LIMIT ?`,
      [apiKeyId, limit],
    )) as RequestLogRow[];
    return rows.map((r) => ({ ...r }));
  }
}
