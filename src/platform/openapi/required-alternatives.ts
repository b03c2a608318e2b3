import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

/** Schema name (the class name, as @nestjs/swagger names schemas) → its groups of alternative fields. */
const ALTERNATIVES = new Map<string, string[][]>();

/**
 * Declares a body that needs one field of each group: a field and the other name it is accepted
 * under (from or sender_id), or a field that something else stands in for (message or
 * template_id). The schema then says so (`allOf` of `anyOf` of `required`), where marking each
 * field required would refuse a valid body written with the other name.
 */
export function ApiRequiresOneOf(...groups: string[][]): ClassDecorator {
  return (target) => {
    ALTERNATIVES.set(target.name, groups);
  };
}

/** Adds the declared alternatives to the document's schemas. */
export function applyRequiredAlternatives(doc: OpenAPIObject): void {
  for (const [name, groups] of ALTERNATIVES) {
    const schema = doc.components?.schemas?.[name] as SchemaObject | undefined;
    if (!schema) continue;
    schema.allOf = [
      ...(schema.allOf ?? []),
      ...groups.map((fields) => ({ anyOf: fields.map((field) => ({ required: [field] })) })),
    ];
  }
}
