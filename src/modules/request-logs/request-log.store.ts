import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LOG_DB } from '../../database/data-sources.js';
import { withNamedLock } from '../../database/named-lock.js';

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

/** One request to log, as the writer batches it. */
export interface RequestLogEntry {
  apiKeyId: string;
  accountId: string;
  method: string;
  path: string;
  status: number;
  ip: string | null;
  userAgent: string | null;
  durationMs: number;
  apiReference: string | null;
  requestId: string | null;
  createdAt: Date;
  /** How many requests the row stands for: more than 1 for a summary of refusals. */
  repeatCount?: number;
}

const INSERT_COLUMNS =
  'api_key_id, account_id, method, path, status, repeat_count, ip, user_agent, duration_ms, api_reference, request_id, created_at';
const ROW_PLACEHOLDERS = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Text cut to its column's width. */
const cut = (s: string | null, n: number) => (s && s.length > n ? s.slice(0, n) : s);

/**
 * Every statement on request_logs (log database): the writer's batches, the pruning, and the
 * reading of a key's logs for `keys logs`.
 */
@Injectable()
export class RequestLogStore {
  constructor(@InjectDataSource(LOG_DB) private readonly logDs: DataSource) {}

  /**
   * `work` while this process holds the log database's prune lock (one per log database); undefined
   * when another process holds it, so two prunes never drop the same partition.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T | undefined> {
    return withNamedLock(this.logDs, `request-logs-prune:${String(this.logDs.options.database)}`, work);
  }

  /** False once the log database is closed (at shutdown): a failed write is then not worth keeping. */
  get open(): boolean {
    return this.logDs.isInitialized;
  }

  /** The batch in one multi-row INSERT. */
  async insert(batch: RequestLogEntry[]): Promise<void> {
    const params: unknown[] = [];
    for (const r of batch) {
      params.push(
        r.apiKeyId,
        r.accountId,
        cut(r.method, 10),
        cut(r.path, 255),
        r.status,
        r.repeatCount ?? 1,
        cut(r.ip, 45),
        cut(r.userAgent, 255),
        Math.max(0, Math.round(r.durationMs)),
        cut(r.apiReference, 20),
        cut(r.requestId, 128),
        r.createdAt,
      );
    }
    await this.logDs.query(
      `INSERT INTO request_logs (${INSERT_COLUMNS}) VALUES ${batch.map(() => ROW_PLACEHOLDERS).join(', ')}`,
      params,
    );
  }

  /** Deletes up to `limit` of the oldest rows created before `cutoff`; returns how many. */
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const result = (await this.logDs.query(
      'DELETE FROM request_logs WHERE created_at < ? ORDER BY created_at LIMIT ?',
      [cutoff, limit],
    )) as { affectedRows?: number };
    return result.affectedRows ?? 0;
  }

  /**
   * A key's request logs for `keys logs`. It asks information_schema which of the expected
   * columns the log database has, and answers an empty list while the table is missing.
   */
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
