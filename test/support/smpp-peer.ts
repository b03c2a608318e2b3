import type { AddressInfo } from 'node:net';
import smpp from 'smpp';

/**
 * A real SMPP 3.4 server on loopback, standing in for an SMSC in tests and benchmarks. Built on the same `smpp`
 * library as the transport, so it decodes exactly what went over the wire. Behaviour can be changed while it
 * runs through `peer.options`.
 */

export type ReceiptStat = 'DELIVRD' | 'UNDELIV' | 'EXPIRED' | 'REJECTD' | 'DELETED' | 'UNKNOWN' | 'ACCEPTD';

export interface SmppPeerOptions {
  systemId?: string;
  password?: string;
  /** Send a delivery receipt with this stat for every accepted submit_sm (so per part for multipart). */
  autoReceipt?: ReceiptStat | false;
  receiptDelayMs?: number;
  /** Put receipted_message_id and message_state TLVs in receipts as well as the text (default true). */
  receiptTlvs?: boolean;
  /** Destinations answered ESME_RINVDSTADR (0x0B). */
  rejectDestinations?: Set<string>;
  /** Every Nth submit_sm (counted over all sessions) is answered ESME_RTHROTTLED and not recorded. */
  throttleEvery?: number;
  /** Delay before each submit_sm_resp. */
  respondDelayMs?: number;
  /** Once, after answering this many submit_sm, close the connection (later PDUs on it are not answered). */
  dropAfter?: number;
  /** As SMSCs do: an automatic receipt not answered ESME_ROK is sent again after this long (0 = never). */
  redeliverReceiptsAfterMs?: number;
  /**
   * Message ids 1, 2, 3… in decimal with no per-peer prefix, as many SMSCs number them: two such
   * peers issue the same ids (default false: ids distinct per peer).
   */
  sequentialIds?: boolean;
}

export interface ReceivedSubmit {
  messageId: string;
  source: string;
  sourceTon: number;
  sourceNpi: number;
  destination: string;
  destTon: number;
  destNpi: number;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  /** Decoded by data_coding (0/1 GSM 03.38, 3 Latin-1, 8 UCS-2), without the UDH. */
  text: string;
  udh?: { ref: number; total: number; seq: number };
  at: number;
}

export interface AssembledMessage {
  source: string;
  destination: string;
  dataCoding: number;
  text: string;
  messageIds: string[];
}

export interface SmppPeer {
  port: number;
  /** smpp://systemId:password@127.0.0.1:port */
  url: string;
  options: Required<Omit<SmppPeerOptions, 'dropAfter'>> & { dropAfter?: number };
  received: ReceivedSubmit[];
  stats: {
    binds: number;
    bindFailures: number;
    submits: number;
    throttled: number;
    rejected: number;
    unbindsReceived: number;
    enquireLinks: number;
    /** deliver_sm receipts answered ESME_ROK, and answered otherwise (or not at all). */
    receiptsAcked: number;
    receiptsRefused: number;
    /** Most submit_sm received but not yet answered at one time (shows the client's window). */
    maxOutstanding: number;
  };
  /** submit_sm PDUs accepted for this destination (a 3-part message counts 3). */
  countByDestination(destination: string): number;
  /** Concatenated parts joined back, in first-part-arrival order; parts still missing leave a message out. */
  messages(): AssembledMessage[];
  /** Sends a receipt for an accepted message id; resolves with the deliver_sm_resp command_status. */
  sendReceipt(
    messageId: string,
    stat?: ReceiptStat,
    options?: { err?: string; tlvs?: boolean },
  ): Promise<number>;
  /** Sends a receipt the way the automatic ones go: again after `redeliverReceiptsAfterMs` until answered ESME_ROK. */
  sendReceiptUntilAcked(messageId: string, stat?: ReceiptStat): void;
  /**
   * Sends an ordinary (mobile-originated) deliver_sm; resolves with the deliver_sm_resp command_status.
   * `extra` sets or overrides fields (data_coding, a short_message with a UDH, sar_* TLVs).
   */
  sendMo(source: string, destination: string, text: string, extra?: smpp.PduParams): Promise<number>;
  /** Sends enquire_link to a bound session; resolves with the enquire_link_resp command_status (-1: none). */
  enquireLink(): Promise<number>;
  /** The peer unbinds every bound session; resolves with each unbind_resp command_status (-1: none in 10 s). */
  unbindAll(): Promise<number[]>;
  /** Bound sessions right now. */
  boundSessions(): number;
  close(): Promise<void>;
}

interface PeerSession {
  session: smpp.Session;
  bound: boolean;
  dropped: boolean;
}

interface Submitted {
  peer: PeerSession;
  source: string;
  destination: string;
  text: string;
  submittedAt: Date;
}

/**
 * How long the peer waits for the client's answer to its request. The client answers a
 * deliver_sm once the receipt is stored: a burst of hundreds on a machine loaded by the rest of
 * the suite has taken over 2 s, which no SMSC's window would give up on.
 */
const RESPONSE_WAIT_MS = 10_000;

function smppDate(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    two(date.getUTCFullYear() % 100) +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes())
  );
}

const MESSAGE_STATE: Record<ReceiptStat, number> = {
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

function decodeText(value: smpp.PduParams['short_message'], dataCoding: number): string {
  if (value === undefined || value === null) return '';
  const message = typeof value === 'string' || Buffer.isBuffer(value) ? value : value.message;
  if (typeof message === 'string') return message;
  // A data_coding the library has no decoder for (binary, etc.) stays raw; hex keeps it comparable.
  return dataCoding === 4 ? message.toString('hex') : message.toString('latin1');
}

function concatUdh(value: smpp.PduParams['short_message']): ReceivedSubmit['udh'] {
  if (!value || typeof value === 'string' || Buffer.isBuffer(value) || !Array.isArray(value.udh))
    return undefined;
  for (const ie of value.udh) {
    if (ie[0] === 0x00 && ie[1] === 3) return { ref: ie[2], total: ie[3], seq: ie[4] };
    if (ie[0] === 0x08 && ie[1] === 4) return { ref: ie.readUInt16BE(2), total: ie[4], seq: ie[5] };
  }
  return undefined;
}

export async function startSmppPeer(options: SmppPeerOptions = {}): Promise<SmppPeer> {
  const opts: SmppPeer['options'] = {
    systemId: options.systemId ?? 'test',
    password: options.password ?? 'secret',
    autoReceipt: options.autoReceipt ?? false,
    receiptDelayMs: options.receiptDelayMs ?? 0,
    receiptTlvs: options.receiptTlvs ?? true,
    rejectDestinations: options.rejectDestinations ?? new Set(),
    throttleEvery: options.throttleEvery ?? 0,
    respondDelayMs: options.respondDelayMs ?? 0,
    dropAfter: options.dropAfter,
    redeliverReceiptsAfterMs: options.redeliverReceiptsAfterMs ?? 0,
    sequentialIds: options.sequentialIds ?? false,
  };
  const received: ReceivedSubmit[] = [];
  const byDestination = new Map<string, number>();
  const submitted = new Map<string, Submitted>();
  const sessions = new Set<PeerSession>();
  const timers = new Set<NodeJS.Timeout>();
  const stats: SmppPeer['stats'] = {
    binds: 0,
    bindFailures: 0,
    submits: 0,
    throttled: 0,
    rejected: 0,
    unbindsReceived: 0,
    enquireLinks: 0,
    receiptsAcked: 0,
    receiptsRefused: 0,
    maxOutstanding: 0,
  };
  let nextId = 1;
  let outstanding = 0;
  let answered = 0;
  // Distinct per peer, so a test cannot pass by matching ids from another peer.
  const idPrefix = Math.floor(Math.random() * 0xffff)
    .toString(16)
    .padStart(4, '0');

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  /** Sends a request to the client and resolves with its response status (-1 when none came). */
  const request = (peer: PeerSession, pdu: smpp.PDU): Promise<number> =>
    new Promise((resolve) => {
      let done = false;
      const finish = (status: number) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(status);
      };
      const timer = setTimeout(() => finish(-1), RESPONSE_WAIT_MS);
      if (!peer.session.send(pdu, (resp) => finish(resp.command_status))) finish(-1);
    });

  const pickSession = (preferred?: PeerSession): PeerSession | undefined => {
    if (preferred && preferred.bound && !preferred.dropped && sessions.has(preferred)) return preferred;
    for (const s of sessions) if (s.bound && !s.dropped) return s;
    return undefined;
  };

  const sendReceipt: SmppPeer['sendReceipt'] = async (messageId, stat = 'DELIVRD', extra = {}) => {
    const original = submitted.get(messageId);
    const peer = pickSession(original?.peer);
    if (!peer) return -1;
    const now = new Date();
    const err = extra.err ?? (stat === 'DELIVRD' ? '000' : '001');
    // Receipt excerpts are ASCII in practice; anything else becomes '?'.
    const excerpt = (original?.text ?? '').slice(0, 20).replace(/[^\x20-\x7e]/g, '?');
    const text =
      `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} ` +
      `submit date:${smppDate(original?.submittedAt ?? now)} done date:${smppDate(now)} ` +
      `stat:${stat} err:${err} text:${excerpt}`;
    const tlvs = extra.tlvs ?? opts.receiptTlvs;
    const pdu = new smpp.PDU('deliver_sm', {
      source_addr_ton: 1,
      source_addr_npi: 1,
      source_addr: original?.destination ?? '',
      dest_addr_ton: 5,
      dest_addr_npi: 0,
      destination_addr: original?.source ?? '',
      esm_class: 0x04,
      data_coding: 0,
      // As octets, the way SMSCs write receipts, so the client's data_coding 0 handling is exercised.
      short_message: Buffer.from(text, 'latin1'),
      ...(tlvs ? { receipted_message_id: messageId, message_state: MESSAGE_STATE[stat] } : {}),
    });
    const status = await request(peer, pdu);
    if (status === 0) stats.receiptsAcked++;
    else stats.receiptsRefused++;
    return status;
  };

  /** An automatic receipt, sent again (as SMSCs do) until it is answered ESME_ROK when redelivery is on. */
  const autoReceipt = (messageId: string, stat: ReceiptStat) =>
    void sendReceipt(messageId, stat).then((status) => {
      if (status !== 0 && opts.redeliverReceiptsAfterMs > 0)
        later(opts.redeliverReceiptsAfterMs, () => autoReceipt(messageId, stat));
    });

  const onSubmit = (peer: PeerSession, pdu: smpp.PDU) => {
    if (peer.dropped) return;
    if (!peer.bound) {
      peer.session.send(pdu.response({ command_status: smpp.ESME_RINVBNDSTS }));
      return;
    }
    stats.submits++;
    outstanding++;
    if (outstanding > stats.maxOutstanding) stats.maxOutstanding = outstanding;

    let response: smpp.PduParams;
    let record: ReceivedSubmit | null = null;
    const destination = pdu.destination_addr ?? '';
    if (opts.throttleEvery > 0 && stats.submits % opts.throttleEvery === 0) {
      stats.throttled++;
      response = { command_status: smpp.ESME_RTHROTTLED };
    } else if (opts.rejectDestinations.has(destination)) {
      stats.rejected++;
      response = { command_status: smpp.ESME_RINVDSTADR };
    } else {
      const messageId = opts.sequentialIds
        ? String(nextId++)
        : `${idPrefix}${(nextId++).toString(16).padStart(8, '0')}`;
      const dataCoding = pdu.data_coding ?? 0;
      record = {
        messageId,
        source: pdu.source_addr ?? '',
        sourceTon: pdu.source_addr_ton ?? 0,
        sourceNpi: pdu.source_addr_npi ?? 0,
        destination,
        destTon: pdu.dest_addr_ton ?? 0,
        destNpi: pdu.dest_addr_npi ?? 0,
        dataCoding,
        esmClass: pdu.esm_class ?? 0,
        registeredDelivery: pdu.registered_delivery ?? 0,
        text: decodeText(pdu.short_message, dataCoding) || decodeText(pdu.message_payload, dataCoding),
        udh: concatUdh(pdu.short_message),
        at: Date.now(),
      };
      response = { message_id: messageId };
    }

    const respond = () => {
      outstanding--;
      if (peer.dropped) return;
      if (record) {
        received.push(record);
        byDestination.set(record.destination, (byDestination.get(record.destination) ?? 0) + 1);
        submitted.set(record.messageId, {
          peer,
          source: record.source,
          destination: record.destination,
          text: record.text,
          submittedAt: new Date(record.at),
        });
      }
      peer.session.send(pdu.response(response));
      answered++;
      if (record && opts.autoReceipt) {
        const { messageId } = record;
        const stat = opts.autoReceipt;
        later(opts.receiptDelayMs, () => autoReceipt(messageId, stat));
      }
      if (opts.dropAfter !== undefined && answered >= opts.dropAfter) {
        opts.dropAfter = undefined;
        peer.dropped = true;
        // end() flushes the responses already written; destroy() then makes sure the client sees the drop.
        peer.session.socket.end(() => peer.session.destroy());
      }
    };
    if (opts.respondDelayMs > 0) later(opts.respondDelayMs, respond);
    else respond();
  };

  const server = smpp.createServer((session) => {
    const peer: PeerSession = { session, bound: false, dropped: false };
    sessions.add(peer);
    // Client resets are expected (tests drop connections on purpose); 'close' does the bookkeeping.
    session.on('error', () => undefined);
    session.on('close', () => sessions.delete(peer));
    const bind = (pdu: smpp.PDU) => {
      if (peer.bound) {
        session.send(pdu.response({ command_status: smpp.ESME_RALYBND }));
      } else if (pdu.system_id === opts.systemId && pdu.password === opts.password) {
        peer.bound = true;
        stats.binds++;
        session.send(pdu.response({ system_id: 'smpp-peer' }));
      } else {
        stats.bindFailures++;
        session.send(pdu.response({ command_status: smpp.ESME_RBINDFAIL }));
      }
    };
    session.on('bind_transceiver', bind);
    session.on('bind_transmitter', bind);
    session.on('bind_receiver', bind);
    session.on('submit_sm', (pdu) => onSubmit(peer, pdu));
    session.on('enquire_link', (pdu) => {
      stats.enquireLinks++;
      session.send(pdu.response());
    });
    session.on('unbind', (pdu) => {
      stats.unbindsReceived++;
      peer.bound = false;
      session.send(pdu.response());
      session.close();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: `smpp://${encodeURIComponent(opts.systemId)}:${encodeURIComponent(opts.password)}@127.0.0.1:${port}`,
    options: opts,
    received,
    stats,
    countByDestination: (destination) => byDestination.get(destination) ?? 0,
    messages() {
      const out: AssembledMessage[] = [];
      const groups = new Map<string, ReceivedSubmit[]>();
      for (const r of received) {
        if (!r.udh) {
          out.push({
            source: r.source,
            destination: r.destination,
            dataCoding: r.dataCoding,
            text: r.text,
            messageIds: [r.messageId],
          });
          continue;
        }
        const key = `${r.source}\u0000${r.destination}\u0000${r.udh.ref}\u0000${r.udh.total}`;
        const group = groups.get(key) ?? [];
        group.push(r);
        groups.set(key, group);
        if (group.length === r.udh.total) {
          group.sort((a, b) => a.udh!.seq - b.udh!.seq);
          out.push({
            source: r.source,
            destination: r.destination,
            dataCoding: r.dataCoding,
            text: group.map((g) => g.text).join(''),
            messageIds: group.map((g) => g.messageId),
          });
          groups.delete(key);
        }
      }
      return out;
    },
    sendReceipt,
    sendReceiptUntilAcked: (messageId, stat = 'DELIVRD') => autoReceipt(messageId, stat),
    sendMo: async (source, destination, text, extra = {}) => {
      const peer = pickSession();
      if (!peer) return -1;
      return request(
        peer,
        new smpp.PDU('deliver_sm', {
          source_addr_ton: 1,
          source_addr_npi: 1,
          source_addr: source,
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          destination_addr: destination,
          esm_class: 0,
          data_coding: 0,
          short_message: text,
          ...extra,
        }),
      );
    },
    enquireLink: async () => {
      const peer = pickSession();
      return peer ? request(peer, new smpp.PDU('enquire_link')) : -1;
    },
    unbindAll: () =>
      Promise.all(
        [...sessions]
          .filter((s) => s.bound && !s.dropped)
          .map(async (s) => {
            s.bound = false;
            const status = await request(s, new smpp.PDU('unbind'));
            s.session.close();
            return status;
          }),
      ),
    boundSessions: () => [...sessions].filter((s) => s.bound && !s.dropped).length,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const s of sessions) s.session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
