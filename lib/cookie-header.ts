/**
 * Reading cookies from a request: a strict `Cookie` header parser and the chunk-aware session cookie reader, shared by
 * the core and `getToken`.
 */
/**
 * Parses a `Cookie` header into a record. Only ASCII space and tab around a pair are skipped (RFC 6265 OWS); names are
 * not normalised, so a Unicode-padded `__Host-` lookalike stays a different name. Of duplicate names the first wins.
 * Values are percent-decoded when they contain `%` (left raw if malformed).
 *
 * @example
 * ```ts
 * parseCookieHeader("a=1; b=%7C") // { a: "1", b: "|" }
 * ```
 */
export function parseCookieHeader(header: string | null | undefined): Record<string, string> {
  const out = new CookieRecord()
  if (!header) return out
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=")
    if (eq === -1) continue
    const name = trimOWS(pair.slice(0, eq))
    if (!name || name in out) continue
    let value = trimOWS(pair.slice(eq + 1))
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    out[name] = value.includes("%") ? safeDecode(value) : value
  }
  return out
}

/**
 * A record that inherits no key (`"constructor" in record` is false, `record.__proto__ = x` is an own key) and stays
 * in V8's fast mode: an `Object.create(null)` object is a dictionary from the start, where setting a key read from the
 * header cost about 0.5 µs per request (issue 27).
 */
const CookieRecord = function CookieRecord() {} as unknown as new () => Record<string, string>
CookieRecord.prototype = Object.create(null) as object

function trimOWS(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && (s[start] === " " || s[start] === "\t")) start++
  while (end > start && (s[end - 1] === " " || s[end - 1] === "\t")) end--
  return s.slice(start, end)
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

export interface StoredSessionCookie {
  /** The whole value, or undefined when absent or inconsistent. */
  value: string | undefined
  /** Names of every session cookie (chunk) the request carried, to delete on write or clear. */
  present: string[]
}

const DOT = 46

/**
 * Reads the session cookie `name` from parsed request cookies: either `name` itself or the chunks `name.0..n-1`.
 * A mix of both, or a gap in the chunks, yields no value (and every piece is reported so it gets cleared).
 *
 * @example
 * ```ts
 * readSessionCookie({ "s.0": "ab", "s.1": "cd" }, "s").value // "abcd"
 * ```
 */
export function readSessionCookie(cookies: Record<string, string>, name: string): StoredSessionCookie {
  // The chunk list is made only when a chunk is seen: nearly every request carries one plain cookie or none.
  let chunks: [number, string][] | undefined
  const present: string[] = []
  // Own keys only (`for...in` without building an entries array: this runs on every session read).
  for (const cookieName in cookies) {
    if (!Object.hasOwn(cookies, cookieName)) continue
    if (cookieName === name) {
      present.push(cookieName)
      continue
    }
    // `<name>.<index>`: the dot is checked before the name, without building the prefix.
    if (cookieName.charCodeAt(name.length) !== DOT || !cookieName.startsWith(name)) continue
    const value = cookies[cookieName]!
    const suffix = cookieName.slice(name.length + 1)
    // A chunk suffix is a canonical decimal index (no sign, no leading zeros), as the writer emits them.
    if (!/^(?:0|[1-9][0-9]{0,3})$/.test(suffix)) continue
    present.push(cookieName)
    if (value) (chunks ??= []).push([Number(suffix), value])
  }
  if (chunks === undefined) return { value: cookies[name] || undefined, present }
  if (present.includes(name)) return { value: undefined, present }
  chunks.sort((a, b) => a[0] - b[0])
  if (chunks.some(([index], i) => index !== i)) return { value: undefined, present }
  return { value: chunks.map(([, v]) => v).join(""), present }
}
