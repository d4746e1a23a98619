// `adapterTimeout`: an adapter call that never settles ends in the fail-closed answer, not a hung request.
import { Auth } from "../../../lib/core"
import { resolveConfig } from "../../../lib/core/kernel/config/resolve"
import { MemoryAdapter } from "../../../lib/storage/memory/adapter"
import type { Adapter } from "../../../lib/storage/adapter"
import type { AuthError } from "../../../lib/errors"
import { ORIGIN, applyCookies, credentialsConfig, csrf, makeRequest, setCookies, signIn } from "../helpers"

// https://app.example: the __Secure- cookie names.
const SESSION = "__Secure-authjs.session-token"

/** The memory adapter, with the named methods hanging forever once `hang` is set. */
function hangingAdapter(names: (keyof Adapter)[]) {
  const inner = MemoryAdapter()
  const state = { hang: false, started: 0 }
  const adapter: Adapter = { ...inner }
  for (const name of names) {
    const original = inner[name] as (...args: unknown[]) => unknown
    ;(adapter as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (!state.hang) return original.apply(inner, args)
      state.started++
      return new Promise(() => undefined)
    }
  }
  return { adapter, inner, state }
}

describe("adapterTimeout", () => {
  it("defaults to 5000 ms and httpTimeout to 10000 ms", () => {
    const resolved = resolveConfig(credentialsConfig())
    expect(resolved.adapterTimeout).toBe(5000)
    expect(resolved.httpTimeout).toBe(10_000)
  })

  it.each([0, -1, Number.NaN, Infinity, "100", 2 ** 31])("rejects adapterTimeout %p with InvalidConfig", (value) => {
    expect(() => resolveConfig(credentialsConfig({ adapterTimeout: value as number }))).toThrow(
      expect.objectContaining({ type: "InvalidConfig", message: "Invalid adapterTimeout" }),
    )
    expect(() => resolveConfig(credentialsConfig({ httpTimeout: value as number }))).toThrow(
      expect.objectContaining({ type: "InvalidConfig", message: "Invalid httpTimeout" }),
    )
  })

  it("a hung session read answers 503 (no session, Retry-After), logs AdapterError and keeps the cookie", async () => {
    const { adapter, state } = hangingAdapter(["getSessionAndUser"])
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, adapterTimeout: 50 })
    const jar = await signIn(config)
    expect(jar[SESSION]).toBeTruthy()

    state.hang = true
    const response = await Auth(makeRequest("/auth/session", { cookies: jar }), config)
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toBe("5")
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(await response.json()).toEqual({ error: "ServiceUnavailable" })
    expect(setCookies(response).has(SESSION)).toBe(false)
    expect(state.started).toBe(1)
    const timedOut = config.logger.errors.find((e) => (e as AuthError).code === "adapter_timeout") as AuthError
    expect(timedOut.type).toBe("AdapterError")
    expect(timedOut.cause).toMatchObject({ method: "getSessionAndUser", timeout: 50 })

    // The database answers again: the same cookie is a session again, nothing was cleared.
    state.hang = false
    const again = await Auth(makeRequest("/auth/session", { cookies: jar }), config)
    expect(((await again.json()) as { user: { name: string } }).user.name).toBe("Ada Lovelace")
  })

  it("a hung createSession ends the sign-in on the error page with no session cookie and no session row", async () => {
    const { adapter, inner, state } = hangingAdapter(["createSession"])
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, adapterTimeout: 50 })
    const { token, cookies } = await csrf(config)
    state.hang = true
    const response = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        body: { csrfToken: token, username: "ada", password: "pw" },
      }),
      config,
    )
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(applyCookies(cookies, response)[SESSION]).toBeUndefined()
    expect(state.started).toBe(1)
    expect(config.logger.errors.map((e) => (e as AuthError).code)).toContain("adapter_timeout")
    // The memory adapter never got the session (the hung call never ran its body).
    const user = await inner.getUser("user-1")
    expect(user?.email).toBe("ada@example.test")
  })

  it("a call that settles in time is untouched, its own error still becomes AdapterError", async () => {
    const adapter: Adapter = {
      ...MemoryAdapter(),
      getSessionAndUser: () => Promise.reject(new Error("connection refused")),
    }
    const config = credentialsConfig({ adapter, session: { strategy: "database" }, adapterTimeout: 60_000 })
    const response = await Auth(makeRequest("/auth/session", { cookies: { [SESSION]: "t" } }), config)
    // Not an outage (no connection or timeout code): the session reads as absent, as before.
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    const [error] = config.logger.errors as AuthError[]
    expect(error!.type).toBe("AdapterError")
    expect(error!.code).toBe("adapter_error")
    expect((error!.cause?.err as Error).message).toBe("connection refused")
  })

  it.each([
    ["ECONNREFUSED", { code: "ECONNREFUSED" }, "adapter_unavailable"],
    ["pg: connection terminated", { message: "Connection terminated unexpectedly" }, "adapter_unavailable"],
    ["pg 57P01 (admin shutdown)", { code: "57P01" }, "adapter_unavailable"],
    ["ioredis: MaxRetriesPerRequestError", { name: "MaxRetriesPerRequestError" }, "adapter_unavailable"],
    ["pg 23505 (unique violation)", { code: "23505" }, "adapter_conflict"],
    ["SQLITE_CONSTRAINT_UNIQUE", { code: "SQLITE_CONSTRAINT_UNIQUE" }, "adapter_conflict"],
    ["a syntax error (42601)", { code: "42601" }, "adapter_error"],
  ])("a driver error (%s) becomes AdapterError with the expected code", async (_, fields, code) => {
    const thrown = Object.assign(new Error((fields as { message?: string }).message ?? "driver error"), fields)
    const adapter: Adapter = { ...MemoryAdapter(), getSessionAndUser: () => Promise.reject(thrown) }
    const config = credentialsConfig({ adapter, session: { strategy: "database" } })
    await Auth(makeRequest("/auth/session", { cookies: { [SESSION]: "t" } }), config)
    const [error] = config.logger.errors as AuthError[]
    expect([error!.type, error!.code]).toEqual(["AdapterError", code])
    expect(error!.cause).toMatchObject({ method: "getSessionAndUser", err: thrown })
  })
})
