import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiDocument, openApiText } from '../../src/app/openapi-writer.js';

type Schema = { required?: string[]; allOf?: Array<{ anyOf?: Array<{ required: string[] }> }> };
type Operation = {
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

/**
 * openapi.json, at the repository's root, is what clients are generated from: it must be the
 * document the code describes, byte for byte, and a valid OpenAPI 3.1 document by a validator
 * that did not write it.
 */
describe('openapi.json', () => {
  let committed: string;
  let doc: Doc;

  beforeAll(async () => {
    committed = readFileSync(OPENAPI_FILE, 'utf8');
    doc = JSON.parse(committed) as Doc;
  });

  it('is the document the code writes (else: run npm run openapi)', async () => {
    const written = openApiText(await openApiDocument());
    // Not toEqual on the text: a failure should say what to do, not print 800 KB of diff.
    const same = written === committed;
    const firstDifference = same ? -1 : [...written].findIndex((ch, i) => ch !== committed[i]);
    expect(
      same,
      `openapi.json differs from the document the code describes (first at character ${firstDifference}: ` +
        `${JSON.stringify(written.slice(Math.max(0, firstDifference - 80), firstDifference + 80))}): ` +
        'run npm run openapi (or npm run sdk, which also regenerates the TypeScript client) and commit the result',
    ).toBe(true);
  });

  it('is valid OpenAPI 3.1 by swagger-parser, with no 3.0-only keyword left', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(committed).not.toMatch(/"nullable":/);
  });

  // swagger-parser checks the document's frame against the OpenAPI 3.1 schema, which leaves the
  // schemas themselves to JSON Schema: a misspelt type, a keyword on the wrong type or a field
  // reflected as `object` (a TypeScript union) passes it. Ajv reads them as JSON Schema 2020-12.
  it('has schemas Ajv compiles as JSON Schema 2020-12, and every example fits its schema', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
    formats.default(ajv);
    for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(keyword);
    const local = JSON.parse(committed.replaceAll('"#/components/schemas/', '"doc#/$defs/')) as Doc;
    ajv.addSchema({ $id: 'doc', $defs: local.components.schemas });
    const problems: string[] = [];
    let checked = 0;
    const check = (schema: object, value: unknown, where: string) => {
      checked++;
      try {
        const valid = ajv.compile(schema);
        if (!valid(value))
          problems.push(`${where}: ${JSON.stringify(value)}: ${ajv.errorsText(valid.errors)}`);
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
      }
    };
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (node === null || typeof node !== 'object') return;
      const { example, examples, schema, ...rest } = node as Record<string, unknown>;
      const typed = ['type', '$ref', 'enum', 'anyOf', 'oneOf', 'allOf'].some((k) => k in rest);
      // A schema with its own example, and a media type's named examples against its schema.
      if (example !== undefined && typed) check(rest, example, where);
      if (schema && examples && typeof examples === 'object')
        for (const [name, e] of Object.entries(examples as Record<string, { value?: unknown }>))
          if (e.value !== undefined) check(schema, e.value, `${where}/examples/${name}`);
      if (schema) walk(schema, `${where}/schema`);
      for (const [key, child] of Object.entries(rest)) walk(child, `${where}/${key}`);
    };
    walk(local.components.schemas, '#/components/schemas');
    walk(local.paths, '#/paths');
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it('says which of the alternative fields a send body needs', () => {
    const groups = (name: string) =>
      (doc.components.schemas[name].allOf ?? []).map((g) => (g.anyOf ?? []).flatMap((a) => a.required));
    expect(groups('SmsSendDto')).toEqual([
      ['from', 'sender_id'],
      ['to', 'recipient'],
      ['message', 'message_body', 'template_id'],
    ]);
    expect(groups('EmailSendDto')).toEqual([
      ['subject', 'template_id'],
      ['email_body', 'template_id'],
    ]);
    expect(doc.components.schemas.EmailSendDto.required).toEqual(expect.arrayContaining(['to', 'from']));
    expect(groups('ChatSendDto')).toEqual([['message', 'template_id']]);
    expect(doc.components.schemas.ChatSendDto.required).toEqual(
      expect.arrayContaining(['senderid', 'recipient']),
    );
    expect(doc.components.schemas.ChatSendDto.required).not.toContain('message');
  });

  it("lists every operation's 405 (with Allow) and its error answers in the error envelope", () => {
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.responses['405']?.headers, where).toHaveProperty('Allow');
        const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400 && s !== '405');
        if (path.startsWith('/health') || path === '/metrics') continue;
        expect(errors, where).toEqual(expect.arrayContaining(['500']));
        if (op.security?.length) expect(errors, where).toEqual(expect.arrayContaining(['401', '429', '503']));
        if (op.requestBody) expect(errors, where).toContain('400');
      }
    }
    expect(operations).toBeGreaterThan(30);
  });
});
