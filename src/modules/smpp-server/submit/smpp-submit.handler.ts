import { Injectable } from '@nestjs/common';
import type smpp from 'smpp';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { parseInboundSms } from '../../delivery/smpp/smpp-inbound.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';
import { SegmentAssembler } from '../segments/segment.assembler.js';
import { SmppSend, type SmppSendResult } from './smpp-send.service.js';
import { keepSubmitTimesAsText, submitTimes } from './smpp-time.js';

/** registered_delivery's receipt bits: 1 every final state, 2 failures only. */
const RECEIPT_BITS = 0x03;

/**
 * A submit_sm or data_sm as a send: source_addr is the sender, destination_addr the recipient,
 * the text short_message or message_payload as data_coding says (the same reading as the
 * deliver_sm our own SMSC links receive); a part of a long text (UDH or SAR) goes to the
 * assembler, anything else is sent at once. The answer comes only once the message (or the
 * part) is stored. schedule_delivery_time and validity_period become the send's send_at and
 * validity (smpp-time.ts); a value that is not an SMPP time is answered 0x61 or 0x62.
 */
@Injectable()
export class SmppSubmitHandler {
  constructor(
    private readonly sender: SmppSend,
    private readonly segments: SegmentAssembler,
  ) {
    keepSubmitTimesAsText();
  }

  submit(credential: SmppCredential, auth: AuthContext, pdu: smpp.PDU): Promise<SmppSendResult> {
    const times = submitTimes(pdu.schedule_delivery_time, pdu.validity_period, new Date());
    if (!times.ok) return Promise.resolve({ status: times.status, why: times.why });
    const { sendAt, validityPeriod } = times;
    const sms = parseInboundSms(pdu);
    const registeredDelivery = (pdu.registered_delivery ?? 0) & RECEIPT_BITS;
    if (sms.concat)
      return this.segments.add(credential, auth, {
        from: sms.from,
        to: sms.to,
        text: sms.text,
        registeredDelivery,
        sendAt,
        validityPeriod,
        ...sms.concat,
      });
    return this.sender.send(credential, auth, {
      from: sms.from,
      to: sms.to,
      text: sms.text,
      registeredDelivery,
      sendAt,
      validityPeriod,
    });
  }
}
