/** Query DTO classes whose unknown parameters are refused (400) instead of dropped. */
const STRICT = new WeakSet<object>();

/**
 * Marks a query DTO whose unknown parameters are refused with 400, naming each, instead of
 * dropped: on a search or an export a misspelt filter (`stauts=FAILED`) would otherwise match
 * everything.
 */
export function RefuseUnknownParameters(): ClassDecorator {
  return (target) => {
    STRICT.add(target);
  };
}

export function refusesUnknownParameters(metatype: object): boolean {
  return STRICT.has(metatype);
}
