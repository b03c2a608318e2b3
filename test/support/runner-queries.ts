import { vi } from 'vitest';
import type { DataSource } from 'typeorm';

/**
 * Records the SQL of every query given to the query runners the data source creates from now
 * on, runner by runner (one list each), until `restore`.
 */
export function recordRunnerQueries(ds: DataSource): { runners: string[][]; restore: () => void } {
  const runners: string[][] = [];
  const create = ds.createQueryRunner.bind(ds);
  const spy = vi.spyOn(ds, 'createQueryRunner').mockImplementation((mode) => {
    const runner = create(mode);
    const mine: string[] = [];
    runners.push(mine);
    const query = runner.query.bind(runner);
    runner.query = ((sql: string, ...rest: unknown[]) => {
      mine.push(sql);
      return (query as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as typeof runner.query;
    return runner;
  });
  return { runners, restore: () => spy.mockRestore() };
}
