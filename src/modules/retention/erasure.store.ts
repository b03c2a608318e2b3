import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affected, FINAL } from './retention.store.js';

const CHUNK = 1000;

/** Which of an account's rows an erasure reaches: both sides, or only its test or live side. */
export interface ErasureScope {
  accountId: string;
  /** undefined: live and test data alike. */
  testMode?: boolean;
}

export interface ErasedRows {
  messages: number;
  send_requests: number;
  inbound_messages: number;
}

/**
 * The statements of a recipient's erasure. The number and the text go; the amounts, states and
 * times stay, so balances, summaries and the ledger still add up. Messages not yet final are left
 * alone (the dispatch still needs their number) and counted.
 */
@Injectable()
export class ErasureStore {
  constructor(@InjectDataSource() private readonly main: DataSource) {}

  async messagesTo(scope: ErasureScope, recipient: string) {
    const params: unknown[] = [scope.accountId, recipient];
    let mode = '';
    if (scope.testMode !== undefined) {
      mode = ' AND r.test_mode = ?';
      params.push(scope.testMode ? 1 : 0);
    }
    const rows = (await this.main.query(
      `SELECT m.id, m.send_request_id, m.status IN (${FINAL}) AS final
         FROM messages m FORCE INDEX (ix_messages_account_recipient_created)
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.account_id = ? AND m.recipient = ?${mode}`,
      params,
    )) as Array<{ id: string; send_request_id: string; final: number | string }>;
    const final = rows.filter((r) => Number(r.final) === 1);
    return {
      ids: final.map((r) => String(r.id)),
      requestIds: [...new Set(final.map((r) => String(r.send_request_id)))],
      pending: rows.length - final.length,
    };
  }

  /**
   * Replaces the number and drops the personalised text of these messages; then empties the text
   * of each request whose every message is now erased (a bulk request's text, shared with other
   * recipients, stays).
   */
  async erase(
    ids: string[],
    requestIds: string[],
    replacement: string,
  ): Promise<Omit<ErasedRows, 'inbound_messages'>> {
    let messages = 0;
    let requests = 0;
    for (let i = 0; i < ids.length; i += CHUNK)
      messages += affected(
        await this.main.query(
          `UPDATE messages SET recipient = ?, body = NULL, subject = NULL WHERE id IN (?) AND status IN (${FINAL})`,
          [replacement, ids.slice(i, i + CHUNK)],
        ),
      );
    for (let i = 0; i < requestIds.length; i += CHUNK)
      requests += affected(
        await this.main.query(
          `UPDATE send_requests SET body = '', subject = NULL
            WHERE id IN (?) AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.send_request_id = send_requests.id AND m.recipient <> ?)`,
          [requestIds.slice(i, i + CHUNK), replacement],
        ),
      );
    return { messages, send_requests: requests };
  }

  /** The inbound messages the recipient sent to the account: number and text replaced. */
  async eraseInbound(scope: ErasureScope, sender: string, replacement: string): Promise<number> {
    const params: unknown[] = [replacement, scope.accountId, sender];
    let mode = '';
    if (scope.testMode !== undefined) {
      mode = ' AND test_mode = ?';
      params.push(scope.testMode ? 1 : 0);
    }
    return affected(
      await this.main.query(
        `UPDATE inbound_messages SET sender = ?, text = '', reply_text = NULL WHERE account_id = ? AND sender = ?${mode}`,
        params,
      ),
    );
  }
}
