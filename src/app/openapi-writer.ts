import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '../config/config.js';
import { buildOpenApiDocument } from '../platform/openapi/openapi.js';
import { AppModule } from './app.module.js';

/** The committed document, at the repository's root (the client package is generated from it). */
export const OPENAPI_FILE = new URL('../../openapi.json', import.meta.url);

/**
 * The OpenAPI document as a default deployment serves it at /docs-json. The app is composed in
 * Nest's preview mode (modules scanned, nothing instantiated), so no database or Redis is needed,
 * and the settings that change the document (METRICS_TOKEN locks /metrics) are left unset
 * whatever the environment says, so the file is the same on every machine.
 */
export async function openApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({ APP_ENV: 'development', METRICS_TOKEN: undefined, ADMIN_TOKEN: undefined });
  const app = await NestFactory.create(AppModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}

/** The file's text: two-space JSON and a final newline, as `npm run openapi` writes it. */
export function openApiText(doc: OpenAPIObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** `npm run openapi`: writes openapi.json from the controllers and DTOs. */
export async function writeOpenApiDocument(): Promise<void> {
  writeFileSync(OPENAPI_FILE, openApiText(await openApiDocument()));
}
