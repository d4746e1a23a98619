/** `{ ...base, ...extra }` for hot paths, without the slow path V8 takes for a spread followed by new keys. */

/**
 * The object `{ ...base, ...extra }` (same own keys, order and values: `extra`'s win). On Node 20 (V8 11), an object
 * literal that starts with a spread and then adds keys the source does not have (`{ ...options, expires }`) costs about
 * 0.4 µs per added key, as the clone gets no fast map for them; starting the literal with its prototype instead (the
 * one it has anyway) avoids that and costs tens of nanoseconds. For objects built on every request.
 *
 * @example
 * ```ts
 * withKeys({ path: "/", httpOnly: true }, { expires }) // { path: "/", httpOnly: true, expires }
 * ```
 */
export function withKeys<A extends object, B extends object>(base: A, extra: B): Omit<A, keyof B> & B {
  const merged: object = { __proto__: Object.prototype, ...base, ...extra }
  return merged as Omit<A, keyof B> & B
}
