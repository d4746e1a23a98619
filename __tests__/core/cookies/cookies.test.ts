import { parseCookieHeader } from "../../../lib/cookie-header"
import { defaultCookies, resolveCookies } from "../../../lib/core/kernel/cookies/names"
import { serialize } from "cookie"
import { CookieJar, encodedValue, serializeCookie } from "../../../lib/core/kernel/cookies/jar"
import { readSessionCookie } from "../../../lib/cookie-header"
import { CHUNK_SIZE, writeSessionCookie } from "../../../lib/core/kernel/cookies/session-store"
import { Auth } from "../../../lib/core"
import { credentialsConfig, makeRequest, setCookies } from "../helpers"

describe("parseCookieHeader", () => {
  it("percent-decodes values, first duplicate wins, strips quotes", () => {
    expect(parseCookieHeader('a=1; b=%7C; a=2; c="q"')).toEqual({ a: "1", b: "|", c: "q" })
  })

  it("does not trim or normalise names beyond ASCII OWS (Cookie Chaos)", () => {
    const parsed = parseCookieHeader("\u00a0__Host-authjs.csrf-token=evil; __Host-authjs.csrf-token =x")
    expect(parsed["__Host-authjs.csrf-token"]).toBe("x")
    expect(Object.keys(parsed)).toContain("\u00a0__Host-authjs.csrf-token")
  })

  it("inherits no key: a cookie named like an Object member is an own value, and an absent one reads undefined", () => {
    const parsed = parseCookieHeader("__proto__=x; constructor=y; toString=z; hasOwnProperty=w")
    expect(Object.keys(parsed)).toEqual(["__proto__", "constructor", "toString", "hasOwnProperty"])
    expect(parsed["__proto__"]).toBe("x")
    expect(parsed.constructor).toBe("y")
    const plain = parseCookieHeader("a=1")
    expect("constructor" in plain).toBe(false)
    expect("toString" in plain).toBe(false)
    expect((plain as Record<string, unknown>)["__proto__"]).toBeUndefined()
    expect({ ...plain }).toEqual({ a: "1" })
  })

  it("ignores legacy $Version attributes as ordinary names and survives malformed input", () => {
    expect(parseCookieHeader("$Version=1; a=%ZZ; ;=; b")).toEqual({ $Version: "1", a: "%ZZ" })
    expect(parseCookieHeader(undefined)).toEqual({})
  })
})

describe("cookie names and options", () => {
  it("uses __Secure- (and __Host- for CSRF) on https", () => {
    const secure = defaultCookies(true)
    expect(secure.sessionToken.name).toBe("__Secure-authjs.session-token")
    expect(secure.csrfToken.name).toBe("__Host-authjs.csrf-token")
    expect(secure.pkceCodeVerifier).toEqual({
      name: "__Secure-authjs.pkce.code_verifier",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true, maxAge: 900 },
    })
    expect(defaultCookies(false).callbackUrl.name).toBe("authjs.callback-url")
  })

  it("deep-merges config.cookies: a name alone, or a single option", () => {
    const c = resolveCookies(false, { sessionToken: { options: { domain: "example.com" } }, csrfToken: { name: "x" } })
    expect(c.sessionToken).toEqual({
      name: "authjs.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: false, domain: "example.com" },
    })
    expect(c.csrfToken.name).toBe("x")
  })

  it("useSecureCookies overrides the per-request detection", async () => {
    const response = await Auth(makeRequest("/auth/csrf"), credentialsConfig({ useSecureCookies: false }))
    expect([...setCookies(response).keys()]).toEqual(["authjs.csrf-token", "authjs.callback-url"])
  })

  it("configured cookie names are used on the wire", async () => {
    const response = await Auth(
      makeRequest("/auth/csrf"),
      credentialsConfig({ cookies: { csrfToken: { name: "my-csrf" } } }),
    )
    expect(setCookies(response).has("my-csrf")).toBe(true)
  })
})

describe("session cookie chunking", () => {
  it("writes 3936-character chunks and reads them back in order", () => {
    const jar = new CookieJar()
    const value = "a".repeat(CHUNK_SIZE) + "b".repeat(CHUNK_SIZE) + "c"
    writeSessionCookie(jar, "s", value, { path: "/" }, [])
    const cookies = Object.fromEntries(jar.list().map((c) => [c.name, c.value]))
    expect(Object.keys(cookies)).toEqual(["s.0", "s.1", "s.2"])
    const shuffled = { "s.2": cookies["s.2"]!, "s.0": cookies["s.0"]!, "s.1": cookies["s.1"]! }
    expect(readSessionCookie(shuffled, "s").value).toBe(value)
  })

  it("a gap in the chunks or foreign suffixes yield no value", () => {
    expect(readSessionCookie({ "s.0": "a", "s.2": "c" }, "s").value).toBeUndefined()
    expect(readSessionCookie({ "s.x": "a", sx: "b" }, "s")).toEqual({ value: undefined, present: [] })
  })

  it("a name that only looks like a chunk of the session cookie is neither read nor cleared", () => {
    // Another cookie's chunk, the name with more after it, an empty, signed or zero-padded index, a name too short.
    const lookalikes = { "t.0": "a", "sx.0": "b", "s.": "c", "s.+1": "d", "s.01": "e", "s.-0": "f", "": "g", x: "h" }
    expect(readSessionCookie(lookalikes, "s")).toEqual({ value: undefined, present: [] })
    expect(readSessionCookie({ ...lookalikes, s: "own" }, "s")).toEqual({ value: "own", present: ["s"] })
    expect(readSessionCookie({ ...lookalikes, "s.0": "a", "s.1": "b" }, "s")).toEqual({
      value: "ab",
      present: ["s.0", "s.1"],
    })
  })

  it("reads only the record's own cookies, never an inherited (polluted) one", () => {
    const cookies = Object.assign(Object.create({ "s.0": "inherited" }) as Record<string, string>, { s: "own" })
    expect(readSessionCookie(cookies, "s")).toEqual({ value: "own", present: ["s"] })
  })
})

describe("CookieJar", () => {
  it("keeps a cookie set with setKeptOnError through discardSets, until it is set again", () => {
    const jar = new CookieJar()
    expect(jar.toHeaders()).toEqual([])
    jar.set("plain", "1", { path: "/" })
    jar.setKeptOnError("kept", "2", { path: "/" })
    jar.delete("gone", { path: "/" })
    jar.discardSets()
    expect(jar.list().map((c) => c.name)).toEqual(["kept", "gone"])
    jar.set("kept", "3", { path: "/" })
    jar.discardSets()
    expect(jar.toHeaders()).toEqual(["gone=; Max-Age=0; Path=/"])
  })
})

describe("serializeCookie", () => {
  const expires = new Date("2026-12-27T08:36:20.123Z")
  const cases: [string, string, Parameters<typeof serialize>[2]][] = [
    [
      "authjs.session-token",
      "eyJhbGciOiJkaXIifQ..aXY.Y2lwaGVy.dGFn",
      { path: "/", httpOnly: true, sameSite: "lax", expires },
    ],
    ["__Host-authjs.csrf-token", "abc|def", { path: "/", httpOnly: true, sameSite: "lax", secure: true }],
    ["authjs.callback-url", "https://app.example/a?b=c d", { path: "/", sameSite: "strict", secure: false }],
    ["gone", "", { path: "/", httpOnly: true, maxAge: 0 }],
    [
      "all",
      "é ✓;,",
      { domain: "app.example", path: "/x", maxAge: 60, expires, partitioned: true, priority: "High" as never },
    ],
    ["coded", "a b", { encode: (value: string) => value.replace(" ", "_"), sameSite: true }],
    ["none", "v", { sameSite: "none", secure: true }],
  ]

  it.each(cases)("writes what cookie's serialize writes: %s", (name, value, options) => {
    expect(serializeCookie({ name, value, options: options ?? {} })).toBe(serialize(name, value, options))
  })

  it("throws what cookie's serialize throws for an invalid name, value or option", () => {
    const invalid: [string, string, Parameters<typeof serialize>[2]][] = [
      ["bad name", "v", {}],
      ["n", "v", { maxAge: 1.5 }],
      ["n", "v", { domain: "bad domain" }],
      ["n", "v", { sameSite: "sometimes" as never }],
      ["n", "a b", { encode: (value: string) => value }],
    ]
    for (const [name, value, options] of invalid) {
      expect(() => serializeCookie({ name, value, options: options ?? {} })).toThrow(
        (() => {
          try {
            serialize(name, value, options)
          } catch (error) {
            return (error as Error).message
          }
          throw new Error("expected serialize to throw")
        })(),
      )
    }
  })
})

describe("encodedValue", () => {
  it("is encodeURIComponent for any value, in any order (the last general encoding is kept and must not leak)", () => {
    const values = [
      "https://app.example/",
      "a|b",
      "https://app.example/",
      "é",
      "ab|cd",
      "https://other.example/",
      "x y",
    ]
    for (const value of [...values, ...values.reverse()]) expect(encodedValue(value)).toBe(encodeURIComponent(value))
  })
})

describe("serializeCookie with the config's frozen options (attributes kept per options object)", () => {
  const sets = [
    resolveCookies(true),
    resolveCookies(false),
    resolveCookies(true, { csrfToken: { options: { domain: "app.example", priority: "high" } } }),
  ]
  const values = [
    "",
    "a|b",
    "https://app.example/x?y=1&z=%",
    "é ünïcode",
    "semi;colon space",
    '"quoted"',
    "x".repeat(300),
    // Values written as they are (encodeURIComponent's unreserved characters only): a JWE, and each such character.
    "eyJhbGciOiJkaXIifQ..aXY.Y2lwaGVy.dGFn-_",
    "AZaz09-_.!~*'()",
    // A CSRF value (hex|hex, written with %7C without the general encoder), and near misses that take the general one.
    `${"0123456789abcdef".repeat(4)}|${"fedcba9876543210".repeat(4)}`,
    "ABCDEF|abcdef",
    "ab||cd",
    "|ab",
    "ab|",
    "ab|cd|ef",
    "ab|c d",
  ]

  it("writes exactly what `cookie` writes, for every cookie of the set and any value", () => {
    for (const set of sets) {
      for (const { name, options } of Object.values(set)) {
        expect(Object.isFrozen(options)).toBe(true)
        for (const value of values) {
          // Twice: the first call keeps the attributes, the second uses them.
          for (let i = 0; i < 2; i++)
            expect(serializeCookie({ name, value, options })).toBe(serialize(name, value, options))
        }
      }
    }
  })

  it("still refuses an invalid name with kept attributes, and a second name with the same options is checked too", () => {
    const { options } = resolveCookies(false).csrfToken
    serializeCookie({ name: "ok", value: "1", options })
    expect(() => serializeCookie({ name: "bad name", value: "1", options })).toThrow(TypeError)
    expect(() => serializeCookie({ name: "bad;name", value: "1", options })).toThrow(TypeError)
    expect(serializeCookie({ name: "other", value: "1", options })).toBe(serialize("other", "1", options))
  })

  it("options with their own expiry are written as given (never kept)", () => {
    const expires = new Date("2030-01-01T00:00:00Z")
    const options = Object.freeze({ ...resolveCookies(false).sessionToken.options, expires })
    expect(serializeCookie({ name: "s", value: "v", options })).toBe(serialize("s", "v", options))
    expect(serializeCookie({ name: "s", value: "v", options })).toContain("Expires=Tue, 01 Jan 2030 00:00:00 GMT")
  })
})
