import smpp from 'smpp';

interface Pending {
  resolve: (status: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Writes a PDU; `onResponse` hears its response. False when the socket takes nothing. */
export type PduWriter = (pdu: smpp.PDU, onResponse?: (resp: smpp.PDU) => void) => boolean;

/** The deliver_sm a session sent, each waiting for its deliver_sm_resp or its timeout. */
export class DeliverTracker {
  private readonly pending = new Map<number, Pending>();

  /** Sends a deliver_sm; resolves with the command_status of its response. */
  send(write: PduWriter, fields: Record<string, unknown>, timeoutMs: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const pdu = new smpp.PDU('deliver_sm', fields as smpp.PduParams);
      const written = write(pdu, (resp) => {
        const p = this.pending.get(resp.sequence_number);
        if (!p) return;
        clearTimeout(p.timer);
        this.pending.delete(resp.sequence_number);
        p.resolve(resp.command_status);
      });
      if (!written) return reject(new Error('session not writable'));
      const timer = setTimeout(() => {
        this.pending.delete(pdu.sequence_number);
        reject(new Error(`no deliver_sm_resp within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(pdu.sequence_number, { resolve, reject, timer });
    });
  }

  /** Fails every deliver_sm still waiting: the session closed. */
  closed(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('session closed'));
    }
    this.pending.clear();
  }
}
