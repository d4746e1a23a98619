import { Auth } from "../../../lib/core"
import { decode, encode } from "../../../lib/jwt"
import { defaultCallbacks } from "../../../lib/core/kernel/config/callbacks"
import { SECRET, applyCookies, credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

const SALT = "__Secure-authjs.session-token"
const noCache = {
  "cache-control": "private, no-cache, no-store",
  expires: "0",
  pragma: "no-cache",
  "content-type": "application/json",
}

function expectNoCacheJson(response: Response) {
  for (const [k, v] of Object.entries(noCache)) expect(response.headers.get(k)).toBe(v)
}

describe("GET /session (JWT)", () => {
  afterEach(() => jest.useRealTimers())

  it("without callbacks answers what the default jwt and session callbacks give when passed explicitly", async () => {
    // The read skips the default callbacks (issue 16): it must answer the same, fresh and past updateAge.
    jest.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
    const token = await encode({
      token: { name: "Ada", email: "ada@example.test", picture: "https://img.test/a.png", sub: "u1", extra: 1 },
      secret: SECRET,
      salt: SALT,
    })
    const explicit = credentialsConfig({
      callbacks: {
        jwt: (p) => defaultCallbacks.jwt(p),
        session: (p) => defaultCallbacks.session(p),
      },
    })
    for (const [at, reissued] of [
      ["2026-01-01T01:00:00Z", false],
      ["2026-01-03T00:00:00Z", true],
    ] as const) {
      jest.setSystemTime(new Date(at))
      const request = () => makeRequest("/auth/session", { cookies: { [SALT]: token } })
      const [skipped, called] = [await Auth(request(), credentialsConfig()), await Auth(request(), explicit)]
      const body = await skipped.json()
      expect(body).toMatchObject({ user: { name: "Ada", image: "https://img.test/a.png" } })
      expect(body).toEqual(await called.json())
      expect(setCookies(skipped).has(SALT)).toBe(reissued)
      expect(setCookies(called).has(SALT)).toBe(reissued)
    }
  })

  it("returns the session, re-issues a cookie past updateAge, and calls jwt → session → events.session", async () => {
    const calls: Record<string, unknown[]> = { jwt: [], session: [], event: [] }
    const config = credentialsConfig({
      callbacks: {
        jwt: (p) => {
          calls.jwt.push(p)
          return p.token
        },
        session: (p) => {
          calls.session.push(p)
          return p.session
        },
      },
      events: { session: (m) => void calls.event.push(m) },
    })
    jest.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
    const token = await encode({
      token: { name: "Ada", email: "ada@example.test", picture: "https://img.test/a.png", sub: "u1" },
      secret: SECRET,
      salt: SALT,
    })
    // Past `updateAge` (one day) since it was issued, so this read re-issues it (issue 16).
    jest.setSystemTime(new Date("2026-01-02T00:00:00Z"))
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), config)
    expect(response.status).toBe(200)
    expectNoCacheJson(response)
    const expires = new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString()
    expect(await response.json()).toEqual({
      user: { name: "Ada", email: "ada@example.test", image: "https://img.test/a.png" },
      expires,
    })
    const cookie = setCookies(response).get(SALT)!
    expect(cookie.value).not.toBe(token)
    const payload = await decode({ token: cookie.value, secret: SECRET, salt: SALT })
    expect(payload).toMatchObject({ name: "Ada", sub: "u1" })
    expect(calls.jwt).toHaveLength(1)
    expect(Object.keys(calls.jwt[0] as object).sort()).toEqual(["session", "token"])
    expect((calls.jwt[0] as { session: unknown }).session).toBeUndefined()
    expect(calls.session[0]).toMatchObject({ token: expect.objectContaining({ sub: "u1" }) })
    expect(calls.event[0]).toMatchObject({ session: { expires }, token: expect.objectContaining({ sub: "u1" }) })
  })

  it("without a jwt callback, the session event and a custom encode get their own copy of the token to change", async () => {
    // The read uses the cached (frozen) payload itself when the jwt callback is the default: whatever it hands on must
    // be a copy, or a listener that writes to it would throw, or change what the next read sees.
    const seen: Array<Record<string, unknown>> = []
    const config = credentialsConfig({
      events: {
        session: ({ token }) => {
          const given = token as Record<string, unknown>
          given.touched = (Number(given.touched) || 0) + 1
          seen.push(given)
        },
      },
      jwt: {
        encode: async (params) => {
          ;(params.token as Record<string, unknown>).encoded = true
          return encode(params)
        },
      },
    })
    jest.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z"), doNotFake: ["nextTick", "setImmediate"] })
    const token = await encode({ token: { name: "Ada", sub: "u1" }, secret: SECRET, salt: SALT })
    const read = () => Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), config)
    // Two fresh reads (the second from the cache), then one past updateAge that re-issues through the custom encode.
    for (const at of ["2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z", "2026-01-03T00:00:00Z"]) {
      jest.setSystemTime(new Date(at))
      const response = await read()
      expect(await response.json()).toMatchObject({ user: { name: "Ada" } })
    }
    expect(seen.map((t) => t.touched)).toEqual([1, 1, 1])
    expect(seen[0]).not.toBe(seen[1])
    const reissued = setCookies(await read()).get(SALT)
    expect(reissued).toBeDefined()
    const payload = await decode({ token: reissued!.value, secret: SECRET, salt: SALT })
    expect(payload).toMatchObject({ sub: "u1", encoded: true })
    expect(payload).not.toHaveProperty("touched")
  })

  it("answers each token's own expiry when reads of tokens with different expiries alternate", async () => {
    // The ISO date of a token's `exp` is kept for the last value only: alternating tokens must never get each other's.
    const config = credentialsConfig()
    const tokens = await Promise.all(
      [3600, 7200].map((maxAge) => encode({ token: { name: "Ada", sub: "u1" }, secret: SECRET, salt: SALT, maxAge })),
    )
    const expiries = await Promise.all(
      tokens.map(async (token) => (await decode({ token, secret: SECRET, salt: SALT }))!.exp as number),
    )
    expect(expiries[0]).not.toBe(expiries[1])
    for (const i of [0, 1, 0, 0, 1, 1, 0]) {
      const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: tokens[i]! } }), config)
      const body = (await response.json()) as { expires: string }
      expect(body.expires).toBe(new Date(expiries[i]! * 1000).toISOString())
    }
  })

  it("no cookie → null with no-cache headers", async () => {
    const response = await Auth(makeRequest("/auth/session"), credentialsConfig())
    expectNoCacheJson(response)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).has(SALT)).toBe(false)
  })

  it.each([
    ["garbage", "not-a-jwe"],
    ["a truncated JWE", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..x.y.z"],
  ])("%s → null, the cookie cleared, one error logged", async (_name, value) => {
    const config = credentialsConfig()
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: value } }), config)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(SALT)).toMatchObject({ value: "", maxAge: 0 })
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toEqual(["JWTSessionError"])
  })

  it("a token encrypted with another salt (cookie name) → null, and one debug line saying why (no error)", async () => {
    const config = credentialsConfig({ debug: true })
    const token = await encode({ token: { sub: "u1" }, secret: SECRET, salt: "authjs.session-token" })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), config)
    expect(await response.json()).toBeNull()
    expect(config.logger.errors).toEqual([])
    expect(config.logger.debugs).toEqual([
      "session cookie ignored: it was sealed with another secret (an old one, or the random development secret of an earlier run)",
    ])
  })

  it("a cookie sealed with an earlier (development) secret: debug, never an error or a stack", async () => {
    const token = await encode({ token: { sub: "u1" }, secret: "the-random-dev-secret-of-yesterday-0123", salt: SALT })
    const config = credentialsConfig({ debug: true })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), config)
    expect(await response.json()).toBeNull()
    expect(config.logger.errors).toEqual([])
    expect(config.logger.debugs[0]).toMatch(/^session cookie ignored: it was sealed with another secret/)
  })

  it("a token made with a foreign secret → null", async () => {
    const token = await encode({ token: { sub: "u1" }, secret: "someone-else-entirely-0123456789", salt: SALT })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), credentialsConfig())
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(SALT)?.maxAge).toBe(0)
  })

  it("an expired token → null and cleared", async () => {
    const token = await encode({ token: { sub: "u1" }, secret: SECRET, salt: SALT, maxAge: 60 })
    jest.useFakeTimers({ now: Date.now() + 3600 * 1000, doNotFake: ["nextTick", "setImmediate"] })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: token } }), credentialsConfig())
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(SALT)?.maxAge).toBe(0)
  })

  it("secret rotation: a cookie made with the old secret still reads, and is re-issued with the new one", async () => {
    const old = await encode({ token: { sub: "u1", name: "Ada" }, secret: SECRET, salt: SALT })
    const config = credentialsConfig({ secret: ["brand-new-secret-0123456789abcdef", SECRET] })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SALT]: old } }), config)
    expect(((await response.json()) as { user: { name: string } }).user.name).toBe("Ada")
    const fresh = setCookies(response).get(SALT)!.value
    expect(await decode({ token: fresh, secret: "brand-new-secret-0123456789abcdef", salt: SALT })).toMatchObject({
      sub: "u1",
    })
  })

  it("jwt callback returning null signs out: null body, cookie cleared", async () => {
    const config = credentialsConfig({ callbacks: { jwt: ({ trigger, token }) => (trigger ? token : null) } })
    const cookies = await signIn(config)
    const response = await Auth(makeRequest("/auth/session", { cookies }), config)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(SALT)?.maxAge).toBe(0)
  })

  it("a throwing session callback → null, cleared, JWTSessionError", async () => {
    const config = credentialsConfig({
      callbacks: {
        session: () => {
          throw new Error("boom")
        },
      },
    })
    const cookies = await signIn(config)
    config.logger.errors.length = 0
    const response = await Auth(makeRequest("/auth/session", { cookies }), config)
    expect(await response.json()).toBeNull()
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toEqual(["JWTSessionError"])
  })

  it("a large token is chunked into .0/.1 cookies, read back, and stale chunks are deleted when it shrinks", async () => {
    const big = "x".repeat(3000)
    let size = "big"
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token }) => (size === "big" ? { ...token, big } : { sub: token.sub, name: token.name }),
      },
    })
    const cookies = await signIn(config)
    expect(Object.keys(cookies).filter((k) => k.startsWith(SALT))).toEqual([`${SALT}.0`, `${SALT}.1`])
    expect(cookies[`${SALT}.0`]).toHaveLength(3936)
    const again = await Auth(makeRequest("/auth/session", { cookies }), config)
    expect(((await again.json()) as { user: { name: string } }).user.name).toBe("Ada Lovelace")

    size = "small"
    const shrunk = await Auth(makeRequest("/auth/session", { cookies }), config)
    const set = setCookies(shrunk)
    expect(set.get(`${SALT}.0`)?.maxAge).toBe(0)
    expect(set.get(`${SALT}.1`)?.maxAge).toBe(0)
    expect(set.get(SALT)?.value).toBeTruthy()
    expect(Object.keys(applyCookies(cookies, shrunk)).filter((k) => k.startsWith(SALT))).toEqual([SALT])
  })

  it("a mix of a plain and a chunked session cookie is rejected and every piece cleared", async () => {
    const config = credentialsConfig()
    const cookies = await signIn(config)
    const response = await Auth(makeRequest("/auth/session", { cookies: { ...cookies, [`${SALT}.0`]: "abc" } }), config)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(`${SALT}.0`)?.maxAge).toBe(0)
    expect(setCookies(response).get(SALT)?.maxAge).toBe(0)
  })
})

describe("POST /session (update)", () => {
  function recordingConfig(seen: unknown[]) {
    return credentialsConfig({
      callbacks: {
        jwt: (p) => {
          seen.push(p)
          return p.trigger === "update" ? { ...p.token, name: (p.session as { name: string }).name } : p.token
        },
      },
    })
  }

  it("a csrfToken whose cookie the request does not carry → 400 null; the jwt callback never sees the update", async () => {
    const seen: unknown[] = []
    const config = recordingConfig(seen)
    const cookies = await signIn(config)
    // A fresh token from another csrf() call: its cookie is not in this browser's jar.
    const { token } = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/session", { cookies, json: true, body: { csrfToken: token, data: { name: "Ada B" } } }),
      config,
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toBeNull()
    expect(response.headers.getSetCookie()).toEqual([])
    expect(seen.some((p) => (p as { trigger?: string }).trigger === "update")).toBe(false)
  })

  it("with CSRF: jwt gets trigger update and the data; 200 with only the JSON content type", async () => {
    const seen: unknown[] = []
    const config = recordingConfig(seen)
    const cookies = await signIn(config)
    const pair = await csrf(config)
    const ok = await Auth(
      makeRequest("/auth/session", {
        cookies: { ...cookies, ...pair.cookies },
        json: true,
        body: { csrfToken: pair.token, data: { name: "Ada B" } },
      }),
      config,
    )
    expect(ok.status).toBe(200)
    expect(ok.headers.get("cache-control")).toBeNull()
    expect(ok.headers.get("content-type")).toBe("application/json")
    expect(((await ok.json()) as { user: { name: string } }).user.name).toBe("Ada B")
    expect(seen.at(-1)).toMatchObject({ trigger: "update", session: { name: "Ada B" } })
  })

  it("without CSRF → 400 null and no cookies", async () => {
    const config = credentialsConfig()
    const cookies = await signIn(config)
    const response = await Auth(
      makeRequest("/auth/session", { cookies, json: true, body: { data: { name: "x" } } }),
      config,
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toBeNull()
    expect(response.headers.getSetCookie()).toEqual([])
  })
})
