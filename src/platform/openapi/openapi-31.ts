import type { OpenAPIObject } from '@nestjs/swagger';

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A schema written the OpenAPI 3.0 way, as @nestjs/swagger writes it, in the form 3.1 (JSON
 * Schema 2020-12) gives it: `nullable` becomes a `null` type (and a `null` among an enum's
 * values), a boolean exclusive bound becomes the bound itself.
 */
function schemaTo31(schema: Node): void {
  if (schema.nullable === true) {
    delete schema.nullable;
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    else if (Array.isArray(schema.type) && !schema.type.includes('null'))
      schema.type = [...schema.type, 'null'];
    else if (schema.type === undefined) {
      const rest = { ...schema };
      for (const key of Object.keys(schema)) if (key !== 'description') delete schema[key];
      schema.anyOf = [rest, { type: 'null' }];
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  } else if (schema.nullable === false) delete schema.nullable;
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[flag] !== 'boolean') continue;
    if (schema[flag] && typeof schema[bound] === 'number') {
      schema[flag] = schema[bound];
      delete schema[bound];
    } else delete schema[flag];
  }
}

/** Walks every object of the document: a `nullable` or boolean bound only ever sits on a schema. */
function walk(value: unknown, isPropertyMap = false): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item);
    return;
  }
  if (!isNode(value)) return;
  if (
    'nullable' in value ||
    typeof value.exclusiveMinimum === 'boolean' ||
    typeof value.exclusiveMaximum === 'boolean'
  )
    schemaTo31(value);
  for (const [key, child] of Object.entries(value)) {
    // Examples are data, not schemas: a field named `nullable` in one stays as it is. Under
    // `properties` the keys are field names, so a field called `example` is still a schema.
    if (!isPropertyMap && (key === 'example' || key === 'examples')) continue;
    walk(child, key === 'properties' && !isPropertyMap);
  }
}

/**
 * The document as OpenAPI 3.1.0: its schemas are then plain JSON Schema 2020-12, which
 * generators (openapi-typescript) and validators read without the 3.0 dialect.
 */
export function toOpenApi31(doc: OpenAPIObject): OpenAPIObject {
  walk(doc.paths);
  walk(doc.components);
  doc.openapi = '3.1.0';
  return doc;
}
