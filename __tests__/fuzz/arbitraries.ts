/** fast-check arbitraries for hostile HTTP requests aimed at the auth routes (methods, paths, headers, cookies, bodies). */
import fc from "fast-check"

/** A request as the fuzzer builds it, before it becomes a Web `Request` or a Node HTTP request. */
export interface FuzzRequest {
  method: string
  path: string
  headers: [string, string][]
  /** Raw `Cookie` header value, or undefined for none. */
  cookie?: string
  contentType?: string
  body?: string
}

/** Strings the core reacts to: field names, action names, provider ids, prototype keys, encodings. */
export const interesting = [
  "csrfToken",
  "callbackUrl",
  "email",
  "username",
  "password",
  "token",
  "code",
  "state",
  "error",
  "redirect",
  "json",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "credentials",
  "email",
  "op",
  "undefined",
  "null",
  "%00",
  "%2e%2e",
  "%2F",
  "%",
  "%%",
  "%E0%A4%A",
  "..",
  ".",
  "//evil.example",
  "https://evil.example/x",
  "javascript:alert(1)",
  "\\\\evil.example",
  "/\\evil.example",
  "https:evil.example",
  "ada@example.test",
  "a@b.c,evil@x.y",
  "\u0000",
  "\u202e",
  "\ud800",
  "é",
  "ﬀ",
  "＠",
  "A".repeat(5000),
]

const ACTIONS = [
  "signin",
  "signout",
  "callback",
  "session",
  "csrf",
  "providers",
  "error",
  "verify-request",
  "webauthn-options",
  "unknown",
]
const PROVIDERS = ["credentials", "email", "op", "nope", "", "%2e%2e", "..", "cred%65ntials", "__proto__"]

/** Percent-encodes like `encodeURIComponent`, but never throws (a lone surrogate becomes U+FFFD's bytes). */
export function encode(value: string): string {
  let out = ""
  for (const byte of Buffer.from(value, "utf8")) {
    const c = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.!~*'()]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

const token = fc.oneof(fc.constantFrom(...interesting), fc.string({ maxLength: 24 }), fc.string({ unit: "grapheme" }))
const shortToken = fc.oneof(fc.constantFrom(...interesting.filter((s) => s.length < 40)), fc.string({ maxLength: 12 }))

/** A path under (or near) the base path: encoded, doubled and dot segments included. */
export function pathArb(basePath: string): fc.Arbitrary<string> {
  const segment = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ACTIONS) },
    { weight: 3, arbitrary: fc.constantFrom(...PROVIDERS) },
    { weight: 2, arbitrary: fc.constantFrom("", ".", "..", "%2e", "%2E%2E", "%2f", "auth", "AUTH", ";x", "a%00") },
    { weight: 1, arbitrary: shortToken.map(encode) },
  )
  const tail = fc.array(segment, { maxLength: 4 }).map((segs) => segs.join("/"))
  const prefix = fc.constantFrom(basePath, basePath, basePath, `${basePath}/`, "", "/", "//", `/x${basePath}`)
  return fc.tuple(prefix, tail).map(([p, t]) => `${p}/${t}`.replace(/^(?!\/)/, "/"))
}

/** A query string: interesting keys, repeated keys, raw and encoded values. */
export const queryArb: fc.Arbitrary<string> = fc
  .array(fc.tuple(shortToken, token, fc.boolean()), { maxLength: 5 })
  .map((pairs) =>
    pairs
      .map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encode(k)}=${encode(v)}`))
      .join("&")
      .replace(/[#\s]/g, ""),
  )

const HEADER_NAMES = [
  "accept",
  "content-type",
  "x-auth-return-redirect",
  "x-forwarded-host",
  "x-forwarded-proto",
  "origin",
  "referer",
  "user-agent",
  "x-requested-with",
  "sec-fetch-mode",
  "authorization",
]

// Header values must be Latin-1 without CR/LF/NUL for both fetch and Node's HTTP client.
const headerValue = fc
  .oneof(
    fc.constantFrom("application/json", "text/html", "*/*", "1", "XMLHttpRequest", "evil.example", "https"),
    fc.string({ maxLength: 40 }),
    fc.string({ minLength: 2000, maxLength: 9000 }),
  )
  .map((s) => s.replace(/[^\x20-\x7e\t]/g, "").trim())

/** Up to 8 headers, duplicates and oversized values included. */
export const headersArb: fc.Arbitrary<[string, string][]> = fc.array(
  fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValue),
  { maxLength: 8 },
)

/** A `Cookie` header: real cookie names (chunked, duplicated, malformed), garbage pairs, oversized values. */
export function cookieArb(names: readonly string[], validValues: readonly string[]): fc.Arbitrary<string | undefined> {
  const name = fc.oneof(
    fc.constantFrom(...names),
    fc
      .tuple(fc.constantFrom(...names), fc.constantFrom("0", "1", "2", "00", "-1", "9999", "x", ""))
      .map(([n, i]) => `${n}.${i}`),
    shortToken.map((s) => s.replace(/[;=\s]/g, "")),
  )
  const value = fc.oneof(
    fc.constantFrom(...validValues),
    fc.constantFrom(...validValues).map((v) => v.slice(0, Math.max(0, v.length - 7))),
    fc.constantFrom(...validValues).map((v) => `${v}A`),
    token.map((s) => s.replace(/[;\r\n]/g, "")),
    fc.string({ minLength: 4000, maxLength: 12000 }).map((s) => s.replace(/[^\x21-\x7e]/g, "x")),
    fc.constantFrom('""', '"', "%", "%zz", "=", "a=b"),
  )
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}=${v}`) },
    { weight: 1, arbitrary: fc.constantFrom("", "=", ";", "novalue", " = ") },
  )
  return fc.option(
    fc.tuple(fc.array(pair, { maxLength: 12 }), fc.constantFrom("; ", ";")).map(([pairs, sep]) => pairs.join(sep)),
    { nil: undefined },
  )
}

/** Form fields as a record (prototype keys, nested and repeated fields, valid-looking values). */
function fieldsArb(extraValues: readonly string[]): fc.Arbitrary<[string, string][]> {
  const key = fc.oneof(
    fc.constantFrom(...interesting.filter((s) => s.length < 40)),
    fc.constantFrom("a[b]", "a[__proto__]", "csrfToken[]", "callbackUrl[0]", "email[]"),
    fc.string({ maxLength: 10 }),
  )
  const value = fc.oneof(token, fc.constantFrom(...extraValues))
  return fc.array(fc.tuple(key, value), { maxLength: 8 })
}

function jsonValue(depth: number, extraValues: readonly string[]): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    token,
    fc.constantFrom(...extraValues),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  )
  if (depth <= 0) return leaf
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(jsonValue(depth - 1, extraValues), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom(...interesting.slice(0, 18)), jsonValue(depth - 1, extraValues)), {
          maxLength: 4,
        })
        .map((entries) => Object.fromEntries(entries)),
    },
  )
}

/** A body with its content type: form, JSON (objects, arrays, scalars, nested, truncated), text, multipart, binary. */
export function bodyArb(extraValues: readonly string[]): fc.Arbitrary<{ contentType?: string; body?: string }> {
  const form = fieldsArb(extraValues).map((fields) => {
    const params = new URLSearchParams()
    for (const [k, v] of fields) params.append(k, v)
    return params.toString()
  })
  const jsonObject = fieldsArb(extraValues).chain((fields) =>
    fc
      .array(fc.tuple(fc.constantFrom(...interesting.slice(0, 18)), jsonValue(3, extraValues)), { maxLength: 3 })
      .map((nested) => {
        // Built as JSON text so a "__proto__" key stays an own key, as it would arrive over the wire.
        const parts = [...fields, ...nested].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`)
        return `{${parts.join(",")}}`
      }),
  )
  const truncate = (arb: fc.Arbitrary<string>) =>
    fc.tuple(arb, fc.nat()).map(([s, n]) => (s.length > 1 ? s.slice(0, n % s.length) : s))
  const contentType = fc.constantFrom(
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=utf-8",
    "application/json",
    "application/json; charset=utf-8",
    "application/ld+json",
    "text/plain",
    "multipart/form-data; boundary=xyz",
    "application/octet-stream",
    "APPLICATION/JSON",
    "",
  )
  return fc.oneof(
    fc.constant({}),
    form.map((body) => ({ contentType: "application/x-www-form-urlencoded", body })),
    jsonObject.map((body) => ({ contentType: "application/json", body })),
    truncate(jsonObject).map((body) => ({ contentType: "application/json", body })),
    jsonValue(2, extraValues).map((v) => ({ contentType: "application/json", body: JSON.stringify(v) ?? "null" })),
    fc.tuple(contentType, fc.oneof(form, jsonObject, token)).map(([c, body]) => ({ contentType: c, body })),
    fc
      .tuple(form, fc.constantFrom("&", "&&", "=&=", "%", "&csrfToken=x&csrfToken=y"))
      .map(([body, junk]) => ({ contentType: "application/x-www-form-urlencoded", body: body + junk })),
  )
}

/** A whole request under `basePath`. */
export function requestArb(options: {
  basePath: string
  cookieNames: readonly string[]
  cookieValues: readonly string[]
  bodyValues: readonly string[]
}): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom("GET", "POST") },
        { weight: 1, arbitrary: fc.constantFrom("PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "get", "post", "TRACE") },
      ),
      path: pathArb(options.basePath),
      query: fc.option(queryArb, { nil: undefined }),
      headers: headersArb,
      cookie: cookieArb(options.cookieNames, options.cookieValues),
      body: bodyArb(options.bodyValues),
    })
    .map(({ method, path, query, headers, cookie, body }) => {
      const upper = method.toUpperCase()
      const hasBody = upper !== "GET" && upper !== "HEAD" && body.body !== undefined
      return {
        method,
        path: query ? `${path}?${query}` : path,
        headers: headers.filter(([name]) => name !== "content-type" || !hasBody),
        cookie,
        contentType: hasBody ? body.contentType : undefined,
        body: hasBody ? body.body : undefined,
      }
    })
}

/** Any text: short strings of code units, graphemes and raw bytes, and the interesting values. */
export const anyText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom(...interesting),
)
