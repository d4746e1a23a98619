import { Auth } from "../lib/core"
import { MemoryAdapter } from "../lib/storage/memory/adapter"
import { createLogger, redact } from "../lib/logger"
import { SECRET, credentialsConfig, csrf, demoUser, makeRequest, signIn } from "./core/helpers"

describe("logger", () => {
  it("user overrides replace single levels; debug output only when debug is on", () => {
    const seen: string[] = []
    const write = jest.spyOn(process.stderr, "write").mockImplementation(() => true)
    try {
      const logger = createLogger({ logger: { warn: (code) => void seen.push(`warn:${code}`) } })
      logger.warn("csrf-disabled")
      logger.debug("quiet")
      logger.error(new Error("to stderr"))
      expect(seen).toEqual(["warn:csrf-disabled"])
      expect(write.mock.calls.map((c) => String(c[0])).join("")).toContain("[gatehouse][error] Error: to stderr")
      expect(write.mock.calls.map((c) => String(c[0])).join("")).not.toContain("quiet")
      const userDebug = jest.fn()
      createLogger({ logger: { debug: userDebug } }).debug("silent", { provider: "github" })
      expect(userDebug).not.toHaveBeenCalled()
      createLogger({ debug: true, logger: { debug: userDebug } }).debug("heard", { provider: "github" })
      expect(userDebug).toHaveBeenCalledWith("heard", { provider: "github" })
      createLogger({ debug: true }).debug("loud", { provider: "github" })
      expect(write.mock.calls.map((c) => String(c[0])).join("")).toContain("[gatehouse][debug]: loud")
    } finally {
      write.mockRestore()
    }
  })

  it("a throwing logger never breaks the request", async () => {
    const config = credentialsConfig({
      logger: {
        error: () => {
          throw new Error("logger down")
        },
      },
    })
    const response = await Auth(
      makeRequest("/auth/session", { cookies: { "__Secure-authjs.session-token": "bad" } }),
      config,
    )
    expect(response.status).toBe(200)
  })

  it("redacts secrets, tokens, passwords and codes in metadata", () => {
    expect(
      redact({
        provider: "github",
        access_token: "at",
        refresh_token: "rt",
        client_secret: "cs",
        password: "pw",
        nested: { code: "c", code_verifier: "v", id_token: "it", ok: 1 },
        args: [{ sessionToken: "st", userId: "u1" }],
      }),
    ).toEqual({
      provider: "github",
      access_token: "[redacted]",
      refresh_token: "[redacted]",
      client_secret: "[redacted]",
      password: "[redacted]",
      nested: { code: "[redacted]", code_verifier: "[redacted]", id_token: "[redacted]", ok: 1 },
      args: [{ sessionToken: "[redacted]", userId: "u1" }],
    })
  })

  it("keeps a driver's error code visible: SQLSTATE, driver and errno names are not secrets", () => {
    const codes = ["42P01", "3F000", "SQLITE_CONSTRAINT_UNIQUE", "ERR_SQLITE_ERROR", "ECONNREFUSED"]
    expect(codes.map((code) => redact({ method: "getUser", code }))).toEqual(
      codes.map((code) => ({ method: "getUser", code })),
    )
    // Authorization codes and anything else under `code` (or a key merely containing it) stay redacted.
    for (const code of ["SplxlOBeZQQYbYS6WxSbIA", "4/0AX4XfWh", "c", "a1b2c", "ABCDEF1234567890ABCDEF"]) {
      expect(redact({ code })).toEqual({ code: "[redacted]" })
    }
    expect(redact({ code_verifier: "42P01" })).toEqual({ code_verifier: "[redacted]" })
  })

  it("a whole credentials flow logs neither the secret, the password nor the session token", async () => {
    const lines: string[] = []
    const record = (...parts: unknown[]) =>
      lines.push(
        JSON.stringify(parts, (_k, v) =>
          v instanceof Error ? { message: v.message, cause: v.cause, stack: v.stack } : v,
        ),
      )
    const config = credentialsConfig({
      debug: true,
      logger: { error: record, warn: record, debug: record },
    })
    const { token, cookies } = await csrf(config)
    const bad = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        body: { csrfToken: token, username: "ada", password: "hunter2-wrong" },
      }),
      config,
    )
    expect(bad.status).toBe(302)
    const ok = await Auth(
      makeRequest("/auth/callback/credentials", {
        cookies,
        body: { csrfToken: token, username: "ada", password: "pw" },
      }),
      config,
    )
    const sessionToken = ok.headers.getSetCookie().find((c) => c.startsWith("__Secure-authjs.session-token="))!
    await Auth(
      makeRequest("/auth/session", { cookies: { "__Secure-authjs.session-token": "garbage-token-value" } }),
      config,
    )
    const all = lines.join("\n")
    expect(lines.length).toBeGreaterThan(0)
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain("hunter2-wrong")
    expect(all).not.toContain(sessionToken.split(";")[0]!.split("=")[1]!)
    expect(all).not.toContain("garbage-token-value")
    expect(all).not.toContain(token)
  })

  describe("LG-02 / LG-03: database session tokens never reach the logger", () => {
    const NAME = "__Secure-authjs.session-token"

    function recorder() {
      const lines: string[] = []
      const record = (...parts: unknown[]) =>
        lines.push(JSON.stringify(parts, (_k, v) => (v instanceof Error ? { message: v.message, cause: v.cause } : v)))
      return { lines, logger: { error: record, warn: record, debug: record } }
    }

    async function databaseSessionFlow(debug: boolean) {
      const { lines, logger } = recorder()
      const config = credentialsConfig({ debug, adapter: MemoryAdapter(), session: { strategy: "database" }, logger })
      const signedIn = await signIn(config)
      const sessionToken = signedIn[NAME]!
      expect(sessionToken).toMatch(/^[\w-]{20,}$/)
      const session = await Auth(makeRequest("/auth/session", { cookies: signedIn }), config)
      expect(((await session.json()) as { user: { email: string } }).user.email).toBe(demoUser.email)
      const { token, cookies } = await csrf(config)
      const out = await Auth(
        makeRequest("/auth/signout", { cookies: { ...cookies, [NAME]: sessionToken }, body: { csrfToken: token } }),
        config,
      )
      expect(out.status).toBe(302)
      return { lines, sessionToken }
    }

    it("LG-02: with debug on, adapter calls are logged by method name and argument count only", async () => {
      const { lines, sessionToken } = await databaseSessionFlow(true)
      const all = lines.join("\n")
      expect(all).toContain("adapter_getSessionAndUser")
      expect(all).toContain("adapter_deleteSession")
      expect(lines.find((l) => l.includes("adapter_getSessionAndUser"))).toBe(
        JSON.stringify(["adapter_getSessionAndUser", { argc: 1 }]),
      )
      expect(all).not.toContain(sessionToken)
      expect(all).not.toContain(demoUser.email)
      expect(all).not.toContain(SECRET)
    })

    it("LG-03: with debug off, a custom logger.debug receives nothing", async () => {
      const { lines, sessionToken } = await databaseSessionFlow(false)
      expect(lines.filter((l) => l.includes("adapter_"))).toEqual([])
      expect(lines.join("\n")).not.toContain(sessionToken)
    })
  })
})
