import { Injectable } from '@nestjs/common';
import type smpp from 'smpp';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { parseInboundSms } from '../../delivery/smpp/smpp-inbound.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';
import { SegmentAssembler } from '../segments/segment.assembler.js';
import { SmppSend, type SmppSendResult } from './smpp-send.service.js';

/** registered_delivery's receipt bits: 1 every final state, 2 failures only. */
const RECEIPT_BITS = 0x03;

/**
 * A submit_sm or data_sm as a send: source_addr is the sender, destination_addr the recipient,
 * the text short_message or message_payload as data_coding says (the same reading as the
 * deliver_sm our own SMSC links receive); a part of a long text (UDH or SAR) goes to the
 * assembler, anything else is sent at once. The answer comes only once the message (or the
 * part) is stored.
 */
@Injectable()
export class SmppSubmitHandler {
  constructor(
    private readonly sender: SmppSend,
    private readonly segments: SegmentAssembler,
  ) {}

  submit(credential: SmppCredential, auth: AuthContext, pdu: smpp.PDU): Promise<SmppSendResult> {
    const sms = parseInboundSms(pdu);
    const registeredDelivery = (pdu.registered_delivery ?? 0) & RECEIPT_BITS;
    if (sms.concat)
      return this.segments.add(credential, auth, {
        from: sms.from,
        to: sms.to,
        text: sms.text,
        registeredDelivery,
        ...sms.concat,
      });
    return this.sender.send(credential, auth, {
      from: sms.from,
      to: sms.to,
      text: sms.text,
      registeredDelivery,
    });
  }
}
