import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The id_nodes table: one auto-increment row per process start, from which its node number comes. */
@Injectable()
export class IdNodeStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Records a process start; returns the row's id, never handed to two processes. */
  async register(host: string, pid: number): Promise<number> {
    const res = (await this.ds.query('INSERT INTO id_nodes (host, pid) VALUES (?, ?)', [host, pid])) as {
      insertId: number;
    };
    return Number(res.insertId);
  }
}
