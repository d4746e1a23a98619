/**
 * A request's headers as a Web `Headers` without copying them one by one: Node's parser already lowercased the names
 * and checked the values that `Headers` would check again (issue 27: the copy was the largest cost `GET /auth/session`
 * had over a protected route). The copy is made only when something changes or walks the headers.
 */
import type { IncomingHttpHeaders } from "node:http"

/** A lowercase header name: an RFC 9110 token with no uppercase letter (what Node's parser gives). */
const LOWER_TOKEN = /^[a-z0-9!#$%&'*+.^_`|~-]+$/
/** Any valid header name (a token), as `Headers` checks it. */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/
/**
 * A value `Headers.append` keeps as it is: every character a byte (no code point over 0xFF), no NUL, CR or LF, and no
 * leading or trailing space or tab (which it would trim).
 */
const PLAIN_VALUE = /^(?:[^\0\t\n\r \u0100-\uffff](?:[^\0\n\r\u0100-\uffff]*[^\0\t\n\r \u0100-\uffff])?)?$/

/**
 * The request's headers as a Web `Headers`, equal to {@link copyHeaders}'s copy for every read. When every name is
 * lowercase (as Node's parser gives them), reads look the name up in `req.headers` and use a value that `Headers`
 * would keep unchanged as it is; anything else (a value an app's middleware set as a number or array, or with a
 * character `Headers` refuses or trims, an HTTP/2 pseudo-header, a mixed-case name) is read from the full copy. Reads
 * see `req.headers` as it is when they are made (a copy kept it as it was when made).
 *
 * @example
 * ```ts
 * headersOf(req).get("accept") // as copyHeaders(req).get("accept")
 * ```
 */
export function headersOf(req: { headers: IncomingHttpHeaders }): Headers {
  const source = req.headers
  for (const name in source) if (!LOWER_TOKEN.test(name)) return copyHeaders(req)
  return new NodeHeaders(source)
}

/**
 * The request's headers as a Web `Headers`: every value Node parsed, HTTP/2 pseudo-headers left out, and a value the
 * Fetch standard refuses dropped (it could not be forwarded).
 *
 * @example
 * ```ts
 * copyHeaders(req).get("user-agent")
 * ```
 */
export function copyHeaders(req: { headers: IncomingHttpHeaders }): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (":path", ...) are not headers of the message.
    if (value === undefined || name.startsWith(":")) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, item)
      } catch {
        // Node accepted a value the Fetch standard does not; such a header cannot be forwarded, so it is dropped.
      }
    }
  }
  return headers
}

/**
 * A `Headers` answering `get` and `has` from Node's parsed headers (all names lowercase) where the value is one string
 * `Headers` keeps unchanged. Anything else (such a value, a change, a walk over the headers, a name `Headers` would
 * refuse) goes to a real copy, made once; from then on every call goes there. It is a `Headers` (`instanceof` holds)
 * whose every method is its own.
 */
class NodeHeaders extends Headers {
  readonly #source: IncomingHttpHeaders
  #copy: Headers | undefined

  constructor(source: IncomingHttpHeaders) {
    super()
    this.#source = source
  }

  #copied(): Headers {
    return (this.#copy ??= copyHeaders({ headers: this.#source }))
  }

  /** The plain value under `name`, `null` for none, `undefined` when only the copy can tell. */
  #plain(name: unknown): string | null | undefined {
    if (this.#copy || typeof name !== "string" || !TOKEN.test(name)) return undefined
    const value = this.#source[name.toLowerCase()]
    if (value === undefined) return null
    return typeof value === "string" && PLAIN_VALUE.test(value) ? value : undefined
  }

  override get(name: string): string | null {
    const value = this.#plain(name)
    return value !== undefined ? value : this.#copied().get(name)
  }
  override has(name: string): boolean {
    const value = this.#plain(name)
    return value !== undefined ? value !== null : this.#copied().has(name)
  }
  override getSetCookie(): string[] {
    return this.#copied().getSetCookie()
  }
  override append(name: string, value: string): void {
    this.#copied().append(name, value)
  }
  override set(name: string, value: string): void {
    this.#copied().set(name, value)
  }
  override delete(name: string): void {
    this.#copied().delete(name)
  }
  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#copied()) callback.call(thisArg, value, key, this)
  }
  override entries(): HeadersIterator<[string, string]> {
    return this.#copied().entries()
  }
  override keys(): HeadersIterator<string> {
    return this.#copied().keys()
  }
  override values(): HeadersIterator<string> {
    return this.#copied().values()
  }
  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.#copied()[Symbol.iterator]()
  }
}
