import type smpp from 'smpp';
import { withFields } from '../../../platform/objects/with-fields.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { within } from '../../../platform/timing/within.js';
import type { DeliveryReport, InboundHandler, ReportHandler } from '../transports/transport.js';
import type { SmppLogger } from './smpp-connection.js';
import { parseInboundSms } from './smpp-inbound.js';
import { errorMessage, type Link } from './smpp-link.js';
import { ESM_CLASS_RECEIPT, ESME_ROK, ESME_RX_T_APPN, receiptText } from './smpp-pdu.js';
import { parseDeliveryReceipt } from './smpp-receipt.js';

// An SMSC waits for deliver_sm_resp (and times out itself): after this long it is told to resend later.
const HANDLER_WAIT_MS = 5000;

/**
 * The receiving side of a bind: each deliver_sm from the SMSC, a delivery receipt or a message
 * from a handset, handed to the handler registered for it and answered.
 *
 * A deliver_sm is acknowledged ESME_ROK only once the handler says it is stored. Anything else
 * (storage down, a handler still busy after HANDLER_WAIT_MS) is answered ESME_RX_T_APPN, SMPP's
 * "temporary application error, retry later", so the SMSC keeps it and delivers it again instead
 * of us dropping it. A receipt we cannot parse is acknowledged: sending it again would not make it
 * any more readable.
 */
export class SmppReceiver {
  private reportHandler: ReportHandler | null = null;
  private inboundHandler: InboundHandler | null = null;
  // Receipts refused during an outage come back by the thousand: one line per cause per window.
  private readonly warnings: RepeatLimiter;

  constructor(
    private readonly where: string,
    /** The connector of the bind: put on every receipt, so receipts are matched within it. */
    private readonly connector: string | null,
    logger: SmppLogger,
  ) {
    this.warnings = new RepeatLimiter(logger);
  }

  onReport(handler: ReportHandler): void {
    this.reportHandler = handler;
  }

  onInbound(handler: InboundHandler): void {
    this.inboundHandler = handler;
  }

  async handle(link: Link, pdu: smpp.PDU): Promise<void> {
    let status = ESME_ROK;
    try {
      // Anything that is not a delivery receipt is a message from a handset; acknowledged once stored.
      if (((pdu.esm_class ?? 0) & ESM_CLASS_RECEIPT) === 0) {
        if (!(await this.deliverInbound(pdu))) status = ESME_RX_T_APPN;
        return;
      }
      const parsed = parseDeliveryReceipt({
        text: receiptText(pdu),
        receiptedMessageId: pdu.receipted_message_id,
        messageState: pdu.message_state,
      });
      if (parsed.kind === 'invalid') {
        this.warnings.warn(`SMPP ${this.where}: ignoring receipt: ${parsed.reason}`, 'receipt-invalid');
        return;
      }
      if (parsed.kind === 'pending') return;
      const report = this.connector
        ? withFields(parsed.report, { connector: this.connector })
        : parsed.report;
      if (!(await this.deliverReport(report))) status = ESME_RX_T_APPN;
    } catch (e) {
      status = ESME_RX_T_APPN;
      this.warnings.warn(
        `SMPP ${this.where}: receipt not stored, asking the SMSC to resend it: ${errorMessage(e)}`,
        'receipt-not-stored',
      );
    } finally {
      link.respond(pdu.response({ command_status: status }));
    }
  }

  /** True once the inbound handler has stored the message; false when it is still busy after HANDLER_WAIT_MS. */
  private async deliverInbound(pdu: smpp.PDU): Promise<boolean> {
    const handler = this.inboundHandler;
    if (!handler) {
      this.warnings.warn(
        `SMPP ${this.where}: inbound message dropped: no inbound handler`,
        'inbound-no-handler',
      );
      return true;
    }
    if (await within(handler(parseInboundSms(pdu)), HANDLER_WAIT_MS)) return true;
    this.warnings.warn(
      `SMPP inbound handler still busy after ${HANDLER_WAIT_MS} ms; asking the SMSC to resend`,
      'inbound-handler-busy',
    );
    return false;
  }

  /** True once the handler has stored the report; false when it is still busy after HANDLER_WAIT_MS. */
  private async deliverReport(report: DeliveryReport): Promise<boolean> {
    const handler = this.reportHandler;
    if (!handler) throw new Error(`no report handler registered for ${report.providerMessageId}`);
    if (await within(handler(report), HANDLER_WAIT_MS)) return true;
    this.warnings.warn(
      `SMPP report handler still busy with ${report.providerMessageId} after ${HANDLER_WAIT_MS} ms; asking the SMSC to resend it`,
      'report-handler-busy',
    );
    return false;
  }
}
