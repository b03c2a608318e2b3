import type smpp from 'smpp';

/** The session's socket as the session writes to it and ends it. */
export class PduWire {
  private corked = false;

  constructor(private readonly session: smpp.Session) {}

  /**
   * Sends a PDU in the same socket write as the others sent in this tick: a group commit
   * answers a whole batch of submits at once, and one write each cost a system call each.
   */
  write(pdu: smpp.PDU, onResponse?: (resp: smpp.PDU) => void): boolean {
    const socket = this.session.socket;
    if (!this.corked && socket.writable) {
      this.corked = true;
      socket.cork();
      process.nextTick(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    return this.session.send(pdu, onResponse);
  }

  /** Sends an unbind; resolves at its unbind_resp, after waitMs, or at once when not sent. */
  unbind(waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(resolve, waitMs);
      const sent = this.session.unbind({}, () => {
        clearTimeout(t);
        resolve();
      });
      if (!sent) {
        clearTimeout(t);
        resolve();
      }
    });
  }

  /** Closes the socket; resolves once closed, or destroyed after waitMs. */
  end(waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.session.close(() => resolve());
      // A peer that never acknowledges the FIN does not hold the shutdown.
      setTimeout(() => {
        this.session.destroy();
        resolve();
      }, waitMs).unref();
    });
  }
}
