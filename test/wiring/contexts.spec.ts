import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { AppModule } from '../../src/app/app.module.js';
import { CliModule } from '../../src/app/cli.module.js';
import { CLI_GROUPS } from '../../src/app/cli-groups.js';
import { loadConfig } from '../../src/config/config.js';
import { WorkerAppModule } from '../../src/app/worker-app.module.js';
import { WorkerModule } from '../../src/app/worker.module.js';
import { testEnv } from '../support/test-app.js';

/**
 * Each process's module graph is resolved in Nest's preview mode: every constructor dependency
 * of every provider is looked up, nothing is instantiated (no database, no Redis). A provider
 * that a context lacks therefore fails here, not in production at the first request.
 */
const config = (overrides: Record<string, string> = {}) => loadConfig(testEnv('bmt_wiring', overrides));

async function resolve(root: DynamicModule): Promise<void> {
  const ctx = await NestFactory.createApplicationContext(root, {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  await ctx.close();
}

/** The controllers a process's module graph registers, by class name. */
async function controllersOf(root: DynamicModule): Promise<string[]> {
  const ctx = await NestFactory.createApplicationContext(root, {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return [...ctx.get(ModulesContainer).values()].flatMap((m) =>
      [...m.controllers.values()].map((c) => c.name),
    );
  } finally {
    await ctx.close();
  }
}

describe('module wiring', () => {
  it('the API resolves every provider', async () => {
    await expect(resolve(AppModule.forRoot(config()))).resolves.toBeUndefined();
  });

  it('the API with in-process workers and the queue dashboard resolves every provider', async () => {
    const c = config({ RUN_WORKERS: 'true', ADMIN_TOKEN: 'a'.repeat(32) });
    expect(c.runWorkers).toBe(true);
    await expect(resolve(AppModule.forRoot(c))).resolves.toBeUndefined();
  });

  it('the worker resolves every provider', async () => {
    await expect(resolve(WorkerAppModule.forRoot(config()))).resolves.toBeUndefined();
  });

  it('the worker loads no controller (it serves no HTTP API)', async () => {
    expect(await controllersOf(WorkerAppModule.forRoot(config()))).toEqual([]);
  });

  it('the controller check sees the API routes', async () => {
    expect(await controllersOf(AppModule.forRoot(config()))).toEqual(
      expect.arrayContaining(['SmsController', 'SchedulingController', 'MetricsController']),
    );
  });

  it('the CLI resolves every provider', async () => {
    await expect(resolve(await CliModule.forRoot(config()))).resolves.toBeUndefined();
  });

  it.each(Object.keys(CLI_GROUPS))(
    'the CLI loaded for the %s group alone resolves every provider',
    async (group) => {
      await expect(resolve(await CliModule.forRoot(config(), group))).resolves.toBeUndefined();
    },
  );

  it('a context that lacks a provider fails to resolve', async () => {
    @Injectable()
    class Needy {
      constructor(readonly unavailable: WorkerModule) {}
    }
    @Module({ providers: [Needy] })
    class Broken {}
    await expect(resolve({ module: Broken })).rejects.toThrow(/Nest can't resolve dependencies of the Needy/);
  });
});

describe('wiring is declared, not looked up', () => {
  const root = join(import.meta.dirname, '../../src');
  const sources = (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
    .map((f) => ({ file: f.split('\\').join('/'), text: readFileSync(join(root, f), 'utf8') }));
  const using = (pattern: RegExp) => sources.filter((s) => pattern.test(s.text)).map((s) => s.file);

  it('only configuration and logging are global modules', () => {
    expect(using(/@Global\(\)/).sort()).toEqual([
      'config/config.module.ts',
      'platform/logging/logging.module.ts',
    ]);
  });

  it('no injection is optional and no provider is found by a non-strict lookup', () => {
    expect(using(/@Optional\(\)/)).toEqual([]);
    expect(using(/strict:\s*false/)).toEqual([]);
    expect(using(/\bModuleRef\b/)).toEqual([]);
    expect(using(/\bforwardRef\(/)).toEqual([]);
  });
});
