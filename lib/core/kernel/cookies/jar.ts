/** The per-request cookie jar: every cookie a response sets or deletes, in order, last write per name wins. */
import { stringifySetCookie, type SerializeOptions } from "cookie"
import { withKeys } from "../../../with-keys"

export interface OutgoingCookie {
  name: string
  value: string
  options: SerializeOptions
}

/**
 * The `Set-Cookie` value of a cookie: the one serialiser of every cookie the core sets.
 *
 * @example
 * ```ts
 * serializeCookie({ name: "a", value: "1", options: { path: "/" } }) // "a=1; Path=/"
 * ```
 */
export function serializeCookie(cookie: OutgoingCookie): string {
  const { name, value, options } = cookie
  const known = Object.isFrozen(options) ? attributesOf(options, name) : undefined
  // The value as `cookie` writes it with its default encoder, whose output never holds what a cookie value cannot.
  if (known !== undefined) return `${name}=${encodedValue(value)}${known}`
  // `serialize(name, value, options)` would build `{ ...options, name, value }` inside `cookie`: its object form with
  // the same object made here writes the same header without the slow path of that spread (with-keys.ts).
  return stringifySetCookie(withKeys(options, { name, value }), options)
}

/** A value `encodeURIComponent` leaves as it is (its unreserved characters only; also the empty value). */
const UNRESERVED = /^[\w.!~*'()-]*$/

/** A CSRF cookie value: two hex strings joined by `|`, which `encodeURIComponent` writes `%7C`. */
const HEX_PAIR = /^[0-9a-f]+\|[0-9a-f]+$/

/** The last value encoded the general way, and its encoding: the callback-url cookie repeats one URL. */
let lastEncoded: { value: string; encoded: string } | undefined

/**
 * `value` as `cookie` writes it with its default encoder (`encodeURIComponent`), whose output never holds what a
 * cookie value cannot; the values every auth answer sets (a JWE, a CSRF value, the callback URL) without the general
 * encoder on each request.
 */
export function encodedValue(value: string): string {
  if (UNRESERVED.test(value)) return value
  if (HEX_PAIR.test(value)) {
    const bar = value.indexOf("|")
    return `${value.slice(0, bar)}%7C${value.slice(bar + 1)}`
  }
  if (lastEncoded?.value !== value) lastEncoded = { value, encoded: encodeURIComponent(value) }
  return lastEncoded.encoded
}

/**
 * The attributes (`; Path=/; HttpOnly; ...`) `cookie` writes for a frozen options object, which cannot change: the
 * config's cookie options are frozen when it is resolved, so the CSRF, callback-url and state cookies of every request
 * reuse them. The name is checked by `cookie` the first time it is used with them. `undefined` for options with
 * their own `expires` (built per cookie) or encoder.
 */
const attributes = new WeakMap<SerializeOptions, { suffix: string; names: Set<string> }>()

function attributesOf(options: SerializeOptions, name: string): string | undefined {
  if (options.expires !== undefined || options.encode !== undefined) return undefined
  let known = attributes.get(options)
  if (known === undefined) {
    const header = stringifySetCookie(withKeys(options, { name, value: "" }), options)
    known = { suffix: header.slice(name.length + 1), names: new Set([name]) }
    attributes.set(options, known)
  } else if (!known.names.has(name)) {
    stringifySetCookie(withKeys(options, { name, value: "" }), options)
    // A config names a handful of cookies: the set stays small.
    if (known.names.size < 64) known.names.add(name)
  }
  return known.suffix
}

function isDeletion(cookie: OutgoingCookie): boolean {
  return cookie.value === "" && cookie.options.maxAge === 0
}

/**
 * Collects the cookies of one response.
 *
 * @example
 * ```ts
 * const jar = new CookieJar()
 * jar.set("a", "1", { path: "/" })
 * jar.toHeaders() // ["a=1; Path=/"]
 * ```
 */
export class CookieJar {
  // Both made on first use: most jars (nearly every session read) never hold a cookie.
  #cookies: Map<string, OutgoingCookie> | undefined
  #keptOnError: Set<string> | undefined

  set(name: string, value: string, options: SerializeOptions): void {
    ;(this.#cookies ??= new Map()).set(name, { name, value, options })
    this.#keptOnError?.delete(name)
  }

  /** Like {@link set}, but the cookie survives {@link discardSets}: for what an error answer itself must carry. */
  setKeptOnError(name: string, value: string, options: SerializeOptions): void {
    this.set(name, value, options)
    ;(this.#keptOnError ??= new Set()).add(name)
  }

  /** Queues a deletion: same name and options, empty value, `Max-Age=0`. */
  delete(name: string, options: SerializeOptions): void {
    const { expires: _expires, maxAge: _maxAge, ...rest } = options
    this.set(name, "", withKeys(rest, { maxAge: 0 }))
  }

  list(): OutgoingCookie[] {
    return this.#cookies === undefined ? [] : [...this.#cookies.values()]
  }

  /**
   * Drops every queued set but keeps the deletions: on an error no new cookie may be handed out, but cookies already
   * known to be spent (single-use check cookies, a revoked session) must still be removed.
   */
  discardSets(): void {
    const cookies = this.#cookies
    if (cookies === undefined) return
    for (const [name, cookie] of cookies) {
      if (!isDeletion(cookie) && !this.#keptOnError?.has(name)) cookies.delete(name)
    }
  }

  toHeaders(): string[] {
    return this.#cookies === undefined || this.#cookies.size === 0 ? [] : this.list().map(serializeCookie)
  }
}
