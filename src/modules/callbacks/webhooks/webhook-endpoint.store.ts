import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** A webhook endpoint as stored. `events` is the list of types (or `*`), comma separated. */
export interface WebhookEndpointRow {
  id: string;
  uuid: string;
  account_id: string;
  test_mode: number;
  url: string;
  events: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret: string;
  failing_since: Date | null;
  last_success_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The side of an account an endpoint belongs to (live or test keys' data). */
export interface EndpointOwner {
  accountId: string;
  testMode: boolean;
}

export interface NewEndpoint {
  uuid: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: 'enabled' | 'disabled';
}

const COLUMNS = `id, uuid, account_id, test_mode, url, events, description, status, disabled_reason, secret,
  failing_since, last_success_at, created_at, updated_at`;

/** Every statement on webhook_endpoints. */
@Injectable()
export class WebhookEndpointStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Inserts the endpoint unless the account already has `max` (both sides counted); the count and
   * the insert in one transaction under the account's row lock, so concurrent creates cannot pass it.
   */
  async insert(owner: EndpointOwner, e: NewEndpoint, max: number): Promise<boolean> {
    return this.ds.transaction(async (em) => {
      await em.query('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [owner.accountId]);
      const [{ n }] = (await em.query('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ?', [
        owner.accountId,
      ])) as { n: string | number }[];
      if (Number(n) >= max) return false;
      await em.query(
        `INSERT INTO webhook_endpoints (uuid, account_id, test_mode, url, events, description, secret)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [e.uuid, owner.accountId, owner.testMode, e.url, e.events.join(','), e.description, e.secret],
      );
      return true;
    });
  }

  /** The side's endpoints, oldest first. */
  async list(owner: EndpointOwner): Promise<WebhookEndpointRow[]> {
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND test_mode = ? ORDER BY id`,
      [owner.accountId, owner.testMode],
    )) as WebhookEndpointRow[];
  }

  /** Every endpoint's account and event types (which accounts owe message events anything). */
  async subscriptions(): Promise<Array<Pick<WebhookEndpointRow, 'account_id' | 'events'>>> {
    return (await this.ds.query('SELECT DISTINCT account_id, events FROM webhook_endpoints')) as Array<
      Pick<WebhookEndpointRow, 'account_id' | 'events'>
    >;
  }

  /** Every endpoint of these accounts, both sides (the fan-out reads them once per batch). */
  async ofAccounts(accountIds: string[]): Promise<WebhookEndpointRow[]> {
    if (accountIds.length === 0) return [];
    return (await this.ds.query(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id IN (?)`, [
      accountIds,
    ])) as WebhookEndpointRow[];
  }

  /** The side's endpoint with that id; undefined for another account's or side's. */
  async get(owner: EndpointOwner, uuid: string): Promise<WebhookEndpointRow | undefined> {
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE uuid = ? AND account_id = ? AND test_mode = ?`,
      [uuid, owner.accountId, owner.testMode],
    )) as WebhookEndpointRow[];
    return rows[0];
  }

  /** The endpoint whatever its owner (the sender, which has the id from the event). */
  async byUuid(uuid: string): Promise<WebhookEndpointRow | undefined> {
    const rows = (await this.ds.query(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE uuid = ?`, [
      uuid,
    ])) as WebhookEndpointRow[];
    return rows[0];
  }

  /** Applies the change; enabling clears the reason and the failing clock. False when not the side's. */
  async update(owner: EndpointOwner, uuid: string, c: EndpointChange): Promise<boolean> {
    const sets: string[] = ['updated_at = CURRENT_TIMESTAMP(3)'];
    const params: unknown[] = [];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (c.url !== undefined) set('url', c.url);
    if (c.events !== undefined) set('events', c.events.join(','));
    if (c.description !== undefined) set('description', c.description);
    if (c.status === 'enabled') sets.push("status = 'enabled', disabled_reason = NULL, failing_since = NULL");
    if (c.status === 'disabled')
      sets.push("status = 'disabled', disabled_reason = 'disabled by the account'");
    const res = (await this.ds.query(
      `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE uuid = ? AND account_id = ? AND test_mode = ?`,
      [...params, uuid, owner.accountId, owner.testMode],
    )) as { affectedRows: number };
    return res.affectedRows > 0;
  }

  async setSecret(owner: EndpointOwner, uuid: string, secret: string): Promise<boolean> {
    const res = (await this.ds.query(
      `UPDATE webhook_endpoints SET secret = ?, updated_at = CURRENT_TIMESTAMP(3)
        WHERE uuid = ? AND account_id = ? AND test_mode = ?`,
      [secret, uuid, owner.accountId, owner.testMode],
    )) as { affectedRows: number };
    return res.affectedRows > 0;
  }

  async remove(owner: EndpointOwner, uuid: string): Promise<boolean> {
    const res = (await this.ds.query(
      'DELETE FROM webhook_endpoints WHERE uuid = ? AND account_id = ? AND test_mode = ?',
      [uuid, owner.accountId, owner.testMode],
    )) as { affectedRows: number };
    return res.affectedRows > 0;
  }

  /** A 2xx: the endpoint is healthy again. */
  async succeeded(uuid: string): Promise<void> {
    await this.ds.query(
      `UPDATE webhook_endpoints SET last_success_at = CURRENT_TIMESTAMP(3), failing_since = NULL WHERE uuid = ?`,
      [uuid],
    );
  }

  /**
   * A failed attempt: starts the failing clock if it is not running, and disables the endpoint
   * when it has run `hours`. True when this call disabled it.
   */
  async failed(uuid: string, hours: number, reason: string): Promise<boolean> {
    const res = (await this.ds.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, updated_at = CURRENT_TIMESTAMP(3)
        WHERE uuid = ? AND status = 'enabled' AND failing_since < CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR`,
      [reason.slice(0, 255), uuid, hours],
    )) as { affectedRows: number };
    await this.ds.query(
      'UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, CURRENT_TIMESTAMP(3)) WHERE uuid = ?',
      [uuid],
    );
    return res.affectedRows > 0;
  }
}
