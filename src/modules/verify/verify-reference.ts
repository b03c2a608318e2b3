/**
 * A verification's message carries `verify-<verification_id>` as its user_reference_id: the
 * state-change listener knows it by that without a query, and a repeat of the start's send
 * stores and charges nothing twice.
 */
export const VERIFY_REFERENCE_PREFIX = 'verify-';
