/** A route whose answer carries a secret shown once (a new API key): which field, and what a replay says instead. */
export interface SecretAnswer {
  /** The JSON field of the answer that holds the secret; it is never stored. */
  field: string;
  /**
   * The sentence a replay answers with (409 SECRET_SHOWN_ONCE), given the first answer without
   * its secret. Absent: a replay answers the first answer without the secret field.
   */
  replay?: (first: Record<string, unknown>) => string;
}

/** The route metadata that holds a route's SecretAnswer (set by `@Idempotent({ secret })`). */
export const SECRET_ANSWER = 'idempotency:secret-answer';
