import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ConnectorRow, RouteRow } from './routing-table.js';

export interface ConnectorFields {
  url: string;
  tps: number;
  window_size: number;
  bind_mode: 'transceiver' | 'transmitter';
  system_type: string | null;
}

export interface RouteView extends RouteRow {
  connector: string;
  username: string | null;
}

export interface ConnectorStateRow {
  worker: string;
  connector: string;
  bound: number;
  in_flight: number;
  queued: number;
  sent_per_second: string;
  last_error: string | null;
  last_error_at: Date | null;
  updated_at: Date;
}

export interface ConnectorStateReport {
  connector: string;
  bound: boolean;
  inFlight: number;
  queued: number;
  sentPerSecond: number;
  lastError: { message: string; at: Date } | null;
}

const CONNECTOR_COLUMNS = 'id, name, url, tps, window_size, bind_mode, system_type, enabled';

/** Every statement on connectors, routes and connector_state. */
@Injectable()
export class ConnectorStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async connectors(): Promise<ConnectorRow[]> {
    return (await this.ds.query(
      `SELECT ${CONNECTOR_COLUMNS} FROM connectors ORDER BY name`,
    )) as ConnectorRow[];
  }

  async connector(name: string): Promise<ConnectorRow | undefined> {
    const [row] = (await this.ds.query(`SELECT ${CONNECTOR_COLUMNS} FROM connectors WHERE name = ?`, [
      name,
    ])) as ConnectorRow[];
    return row;
  }

  /** False when the name is taken. */
  async insertConnector(name: string, f: ConnectorFields): Promise<boolean> {
    const result = (await this.ds.query(
      `INSERT IGNORE INTO connectors (name, url, tps, window_size, bind_mode, system_type) VALUES (?, ?, ?, ?, ?, ?)`,
      [name, f.url, f.tps, f.window_size, f.bind_mode, f.system_type],
    )) as { affectedRows: number };
    return result.affectedRows === 1;
  }

  /** Fields left undefined keep their value; system_type null clears it. */
  async updateConnector(id: number, f: Partial<ConnectorFields> & { enabled?: boolean }): Promise<void> {
    await this.ds.query(
      `UPDATE connectors SET url = COALESCE(?, url), tps = COALESCE(?, tps), window_size = COALESCE(?, window_size),
              bind_mode = COALESCE(?, bind_mode), system_type = IF(?, ?, system_type),
              enabled = COALESCE(?, enabled), updated_at = CURRENT_TIMESTAMP(3)
        WHERE id = ?`,
      [
        f.url ?? null,
        f.tps ?? null,
        f.window_size ?? null,
        f.bind_mode ?? null,
        f.system_type !== undefined ? 1 : 0,
        f.system_type ?? null,
        f.enabled === undefined ? null : Number(f.enabled),
        id,
      ],
    );
  }

  async deleteConnector(id: number): Promise<void> {
    await this.ds.query('DELETE FROM connectors WHERE id = ?', [id]);
  }

  async routes(): Promise<RouteRow[]> {
    return (await this.ds.query(
      'SELECT id, account_id, prefix, connector_id, priority FROM routes',
    )) as RouteRow[];
  }

  async routeViews(): Promise<RouteView[]> {
    return (await this.ds.query(
      `SELECT r.id, r.account_id, r.prefix, r.connector_id, r.priority, c.name AS connector, a.username
         FROM routes r JOIN connectors c ON c.id = r.connector_id
         LEFT JOIN accounts a ON a.id = r.account_id
        ORDER BY r.prefix, a.username IS NOT NULL, a.username, r.priority, c.name`,
    )) as RouteView[];
  }

  async countRoutesOf(connectorId: number): Promise<number> {
    const [{ n }] = (await this.ds.query('SELECT COUNT(*) AS n FROM routes WHERE connector_id = ?', [
      connectorId,
    ])) as Array<{ n: string }>;
    return Number(n);
  }

  /** Adds the route, or sets the priority of the one already there. */
  async upsertRoute(accountId: string, prefix: string, connectorId: number, priority: number): Promise<void> {
    await this.ds.query(
      `INSERT INTO routes (account_id, prefix, connector_id, priority) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE priority = VALUES(priority)`,
      [accountId, prefix, connectorId, priority],
    );
  }

  /** How many routes went. */
  async deleteRoutes(accountId: string, prefix: string, connectorId: number | null): Promise<number> {
    const result = (await this.ds.query(
      'DELETE FROM routes WHERE account_id = ? AND prefix = ? AND (? IS NULL OR connector_id = ?)',
      [accountId, prefix, connectorId, connectorId],
    )) as { affectedRows: number };
    return result.affectedRows;
  }

  /** One worker's binds as it sees them now: one multi-row upsert. */
  async reportState(worker: string, states: ConnectorStateReport[]): Promise<void> {
    if (states.length === 0) return;
    const now = new Date();
    await this.ds.query(
      `INSERT INTO connector_state
         (worker, connector, bound, in_flight, queued, sent_per_second, last_error, last_error_at, updated_at)
       VALUES ${states.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON DUPLICATE KEY UPDATE bound = VALUES(bound), in_flight = VALUES(in_flight), queued = VALUES(queued),
         sent_per_second = VALUES(sent_per_second), last_error = VALUES(last_error),
         last_error_at = VALUES(last_error_at), updated_at = VALUES(updated_at)`,
      states.flatMap((s) => [
        worker,
        s.connector,
        s.bound ? 1 : 0,
        s.inFlight,
        s.queued,
        Math.round(s.sentPerSecond * 10) / 10,
        s.lastError?.message.slice(0, 255) ?? null,
        s.lastError?.at ?? null,
        now,
      ]),
    );
  }

  /** A stopping worker takes its rows with it. */
  async clearState(worker: string): Promise<void> {
    await this.ds.query('DELETE FROM connector_state WHERE worker = ?', [worker]);
  }

  /** Rows reported within the last `freshMs` (older ones belong to workers that are gone). */
  async liveState(freshMs: number): Promise<ConnectorStateRow[]> {
    return (await this.ds.query(
      `SELECT worker, connector, bound, in_flight, queued, sent_per_second, last_error, last_error_at, updated_at
         FROM connector_state
        WHERE updated_at >= ?`,
      [new Date(Date.now() - freshMs)],
    )) as ConnectorStateRow[];
  }
}
