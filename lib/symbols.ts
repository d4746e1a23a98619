/**
 * The marker symbols of the public API (runtime values, kept apart from the type modules). A leaf module: it imports
 * nothing. Security opt-outs are symbols, never booleans, so they cannot be switched on from JSON or an env variable.
 */

/** Marker: return the internal result instead of a `Response` (for framework authors). */
export const raw: unique symbol = Symbol.for("gatehouse.raw")
/**
 * Marker: skip the built-in CSRF check.
 *
 * **Warning**: only for framework authors that do their own CSRF protection; otherwise it opens every POST action
 * to cross-site request forgery.
 */
export const skipCSRFCheck: unique symbol = Symbol.for("gatehouse.skipCSRFCheck")

/** Marker key: a provider's replacement for `fetch`. */
export const customFetch: unique symbol = Symbol.for("gatehouse.customFetch")
