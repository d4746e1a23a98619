import { Auth } from "../../../lib/core"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import type { Adapter } from "../../../lib/storage/adapter"
import { hashSessionToken } from "../../../lib/core/session/token"
import { ORIGIN, applyCookies, credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

const NAME = "__Secure-authjs.session-token"
const DAY = 24 * 3600 * 1000

async function seed(adapter: ReturnType<typeof MemoryAdapter>, expires: Date, token = "tok-1") {
  await adapter.createUser({ id: "u1", name: "Ada", email: "ada@example.test", emailVerified: null, image: null })
  await adapter.createSession({ sessionToken: token, userId: "u1", expires })
  return token
}

describe("database sessions", () => {
  afterEach(() => jest.useRealTimers())

  it("valid session: the row's expiry moves to now+maxAge, the body shows the old expiry (reference 18.3)", async () => {
    const adapter = MemoryAdapter()
    const oldExpires = new Date(Date.now() + 10 * DAY) // issued 20 days ago: due for an update
    const token = await seed(adapter, oldExpires)
    const calls: unknown[] = []
    let jwtCalled = false
    const config = credentialsConfig({
      adapter,
      callbacks: {
        session: (p) => {
          calls.push(p)
          return {
            user: { name: p.user?.name, email: p.user?.email, image: p.user?.image },
            expires: p.session.expires,
          }
        },
        jwt: (p) => {
          jwtCalled = true
          return p.token
        },
      },
    })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)
    const body = (await response.json()) as { expires: string; user: unknown }
    expect(body.expires).toBe(oldExpires.toISOString())
    expect(body.user).toEqual({ name: "Ada", email: "ada@example.test", image: null })
    const row = (await adapter.getSessionAndUser(token))!
    expect(row.session.expires.valueOf()).toBeGreaterThan(Date.now() + 29 * DAY)
    expect(setCookies(response).get(NAME)?.value).toBe(token)
    // Issue 11 #15: the raw token is never handed to the callback.
    expect(calls[0]).not.toHaveProperty("session.sessionToken")
    expect(calls[0]).toMatchObject({
      newSession: undefined,
      user: { id: "u1" },
      session: { user: { id: "u1" } },
    })
    expect(jwtCalled).toBe(false)
  })

  it("within updateAge the row is not written (throttled writes)", async () => {
    const adapter = MemoryAdapter()
    const expires = new Date(Date.now() + 30 * DAY - 60_000) // issued a minute ago
    const token = await seed(adapter, expires)
    const spy = jest.spyOn(adapter, "updateSession")
    const config = credentialsConfig({ adapter })
    for (let i = 0; i < 3; i++) await Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)
    expect(spy).not.toHaveBeenCalled()
    jest.useFakeTimers({ now: Date.now() + DAY + 1000, doNotFake: ["nextTick", "setImmediate"] })
    await Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)
    await Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)
    expect(spy).toHaveBeenCalledTimes(1)
  })

  it("expired session: the row is deleted, body null, cookie cleared, no session callback (reference 18.4)", async () => {
    const adapter = MemoryAdapter()
    const token = await seed(adapter, new Date(Date.now() - 1000))
    const session = jest.fn()
    const config = credentialsConfig({ adapter, callbacks: { session } })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [NAME]: token } }), config)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(NAME)).toMatchObject({ value: "", maxAge: 0 })
    expect(await adapter.getSessionAndUser(token)).toBeNull()
    expect(session).not.toHaveBeenCalled()
  })

  it("unknown token → null and cleared", async () => {
    const config = credentialsConfig({ adapter: MemoryAdapter() })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [NAME]: "nope" } }), config)
    expect(await response.json()).toBeNull()
    expect(setCookies(response).get(NAME)?.maxAge).toBe(0)
  })

  it("an adapter failure fails closed: null, and one error logged (the wrapped AdapterError)", async () => {
    const adapter: Adapter = {
      ...MemoryAdapter(),
      getSessionAndUser: async () => {
        throw new Error("connection refused")
      },
    }
    const config = credentialsConfig({ adapter })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [NAME]: "tok" } }), config)
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    expect(config.logger.errors.map((e) => (e as { type?: string }).type)).toEqual(["AdapterError"])
  })

  it("credentials sign-in works with database sessions: the cookie holds only a token, the row exists", async () => {
    const adapter = MemoryAdapter()
    const createUser = jest.fn()
    const config = credentialsConfig({ adapter, events: { createUser } })
    const cookies = await signIn(config)
    const token = cookies[NAME]!
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    // The row is stored under the token's hash, never the token itself.
    expect(await adapter.getSessionAndUser(token)).toBeNull()
    const row = await adapter.getSessionAndUser(hashSessionToken(token))
    expect(row?.session.sessionToken).toBe(hashSessionToken(token))
    expect(row?.user).toMatchObject({ id: "user-1", email: "ada@example.test" })
    expect(createUser).toHaveBeenCalledTimes(1)
    const response = await Auth(makeRequest("/auth/session", { cookies }), config)
    expect(((await response.json()) as { user: { name: string } }).user.name).toBe("Ada Lovelace")

    // Signing in again reuses the user, issues a NEW token and deletes the old session (no fixation).
    const again = await signIn({ ...config })
    expect(again[NAME]).not.toBe(token)
    const pair = await csrf(config)
    const second = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies: { ...cookies, ...pair.cookies },
        body: { csrfToken: pair.token, username: "ada", password: "pw" },
      }),
      config,
    )
    const rotated = applyCookies(cookies, second)[NAME]!
    expect(rotated).not.toBe(token)
    expect(await adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
    expect(await adapter.getSessionAndUser(hashSessionToken(rotated))).not.toBeNull()
    expect(createUser).toHaveBeenCalledTimes(1)
  })

  it("sign-out deletes the row and fires signOut with it", async () => {
    const adapter = MemoryAdapter()
    const signOut = jest.fn()
    const config = credentialsConfig({ adapter, events: { signOut } })
    const cookies = await signIn(config)
    const token = cookies[NAME]!
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/signout", { cookies: { ...cookies, ...pair.cookies }, body: { csrfToken: pair.token } }),
      config,
    )
    expect(response.headers.get("location")).toBe(ORIGIN)
    expect(await adapter.getSessionAndUser(hashSessionToken(token))).toBeNull()
    expect(signOut).toHaveBeenCalledWith({
      session: expect.objectContaining({ sessionToken: hashSessionToken(token) }),
    })
  })

  it("POST /session update passes newSession and trigger to the session callback", async () => {
    const adapter = MemoryAdapter()
    const seen: unknown[] = []
    const config = credentialsConfig({
      adapter,
      callbacks: {
        session: (p) => {
          seen.push(p)
          return { expires: String(p.session.expires) }
        },
      },
    })
    const cookies = await signIn(config)
    const pair = await csrf(config)
    const response = await Auth(
      makeRequest("/auth/session", {
        cookies: { ...cookies, ...pair.cookies },
        json: true,
        body: { csrfToken: pair.token, data: { theme: "dark" } },
      }),
      config,
    )
    expect(response.status).toBe(200)
    expect(seen.at(-1)).toMatchObject({ newSession: { theme: "dark" }, trigger: "update" })
  })

  it("jwt strategy can be forced with an adapter", async () => {
    const adapter = MemoryAdapter()
    const config = credentialsConfig({ adapter, session: { strategy: "jwt" } })
    const cookies = await signIn(config)
    expect(cookies[NAME]!.split(".")).toHaveLength(5)
  })
})
