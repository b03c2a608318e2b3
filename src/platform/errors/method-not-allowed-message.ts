/** The wording of a 405, here and in the OpenAPI examples. */
export function methodNotAllowedMessage(method: string, allow: string): string {
  return `${method} is not served on this path; it answers ${allow}.`;
}
