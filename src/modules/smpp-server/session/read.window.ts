/** What the window pauses and resumes: the session's reading of PDUs. */
interface Reader {
  pause(): void;
  resume(): void;
}

/**
 * PDUs read and not yet answered, up to a window: at the window the socket is paused (never a
 * PDU failed), and resumed once an answer brings the count below it.
 */
export class ReadWindow {
  private unanswered = 0;
  private paused = false;
  private drained?: () => void;

  constructor(
    private readonly size: number,
    private readonly reader: Reader,
  ) {}

  /** A PDU read, to be answered. */
  opened(): void {
    this.unanswered++;
    if (this.unanswered >= this.size && !this.paused) {
      this.paused = true;
      this.reader.pause();
    }
  }

  /** A PDU answered; a session `closing` reads nothing more. */
  answered(closing: boolean): void {
    this.unanswered--;
    if (this.paused && this.unanswered < this.size && !closing) {
      this.paused = false;
      this.reader.resume();
    }
    if (this.unanswered === 0) this.drained?.();
  }

  /** Resolves once every PDU read has its answer, or after waitMs. */
  async drain(waitMs: number): Promise<void> {
    if (this.unanswered === 0) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, waitMs);
      this.drained = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
}
