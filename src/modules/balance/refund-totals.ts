import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How much of a request's charge the ledger has given back. */
@Injectable()
export class RefundTotals {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The sum of a request's refunds, as decimal text ('0.000000' when none). */
  async forRequest(sendRequestId: string): Promise<string> {
    const [row] = (await this.ds.query(
      "SELECT COALESCE(SUM(amount), 0) AS refunded FROM ledger_entries WHERE send_request_id = ? AND kind = 'refund'",
      [sendRequestId],
    )) as Array<{ refunded: string }>;
    return String(row.refunded);
  }
}
