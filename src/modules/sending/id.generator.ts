import { hostname } from 'node:os';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { IdNodeStore } from './id-node.store.js';

const pad3 = (n: number) => String(n).padStart(3, '0');

/**
 * 19-digit decimal ids, unique across processes and increasing with time:
 * 13 digits of epoch milliseconds, 3 of node number, 3 of sequence. The node number comes
 * from an auto-increment row in MySQL at start, so concurrent processes never share one
 * (within 1,000 consecutive starts). Past 1,000 ids in one millisecond the clock is borrowed
 * from the next millisecond, which keeps ids unique and ordered.
 */
@Injectable()
export class IdGenerator implements OnModuleInit {
  private node = -1;
  private lastMs = 0;
  private seq = 0;

  constructor(private readonly nodes: IdNodeStore) {}

  async onModuleInit(): Promise<void> {
    this.node = (await this.nodes.register(hostname().slice(0, 255), process.pid)) % 1000;
  }

  next(): string {
    if (this.node < 0) throw new Error('IdGenerator used before its node number was assigned');
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else if (++this.seq > 999) {
      this.lastMs += 1;
      this.seq = 0;
    }
    return `${this.lastMs}${pad3(this.node)}${pad3(this.seq)}`;
  }
}
