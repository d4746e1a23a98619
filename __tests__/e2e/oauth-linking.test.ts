// End to end: the account-linking table of reference 6.4 through Auth() + a real oidc-provider + MemoryAdapter, with
// JWT and database sessions; profile() failures; the stable JWT `sub` without an adapter.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AdapterUser } from "../../lib/storage/adapter"
import { Auth } from "../../lib/core"
import { Gatehouse } from "../../lib/web"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { AuthError } from "../../lib/errors"
import { hashSessionToken } from "../../lib/core/session/token"
import { decode } from "../../lib/jwt"
import { stableUserId } from "../../lib/oauth"
import type { OAuthConfig } from "../../lib/providers/types"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"

const APP = "http://app.test"
const SECRET = "linking-secret-0123456789abcdef0123456789abcdef"
const SESSION_COOKIE = "authjs.session-token"
const PROVIDER_IDS = ["op", "op2", "op-danger", "op-bad-profile"]
let op: StartedOidcProvider

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_IDS.map((id) => `${APP}/auth/callback/${id}`) })
})
afterAll(async () => op.close())

function oidc(id: string, extra: Partial<OAuthConfig> = {}): OAuthConfig {
  return testOidcProvider(op, id, { checks: ["pkce", "state", "nonce"], ...extra })
}

interface Recorded {
  /** Events and callbacks in the order they ran. */
  calls: { name: string; params: Record<string, unknown> }[]
  errors: Error[]
}

/** A config whose callbacks and events record what they were called with. */
function makeConfig(options: { strategy?: "jwt" | "database"; adapter?: boolean } = {}): {
  config: AuthConfig
  adapter: ReturnType<typeof MemoryAdapter>
  recorded: Recorded
} {
  const adapter = MemoryAdapter()
  const recorded: Recorded = { calls: [], errors: [] }
  const record =
    (name: string) =>
    (params: Record<string, unknown>): void => {
      recorded.calls.push({ name, params })
    }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    ...(options.adapter === false ? {} : { adapter }),
    ...(options.strategy ? { session: { strategy: options.strategy } } : {}),
    pages: { newUser: "/welcome" },
    logger: { error: (e) => recorded.errors.push(e), warn: () => undefined, debug: () => undefined },
    providers: [
      oidc("op"),
      oidc("op2"),
      oidc("op-danger", { allowDangerousEmailAccountLinking: true }),
      oidc("op-bad-profile", {
        profile: () => {
          throw new Error("unexpected profile shape")
        },
      }),
    ],
    callbacks: {
      signIn: (params) => {
        record("callbacks.signIn")(params as Record<string, unknown>)
        return true
      },
      jwt: (params) => {
        record("callbacks.jwt")(params as Record<string, unknown>)
        return params.token
      },
    },
    events: {
      createUser: record("events.createUser"),
      linkAccount: record("events.linkAccount"),
      signIn: record("events.signIn"),
    },
  }
  return { config, adapter, recorded }
}

/** A browser at the app: keeps the cookies that Auth() sets. */
class AppBrowser {
  readonly cookies = new Map<string, string>()
  constructor(private readonly config: AuthConfig) {}

  async request(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers()
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const response = await Auth(
      new Request(`${APP}${path}`, { method: init.method ?? "GET", headers, body }),
      this.config,
    )
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  /** csrf → POST /signin/:id → the OP's login and consent (as `login`) → GET /callback/:id. */
  async signIn(providerId: string, login: string): Promise<Response> {
    const csrf = (await (await this.request("/auth/csrf")).json()) as { csrfToken: string }
    const start = await this.request(`/auth/signin/${providerId}`, {
      method: "POST",
      form: { csrfToken: csrf.csrfToken, callbackUrl: `${APP}/dashboard` },
    })
    expect(start.status).toBe(302)
    const delivery = await driveAuthorization(start.headers.get("location") as string, `${APP}/auth/callback/`, {
      login,
    })
    return this.request(`${delivery.url.pathname}?${delivery.params}`)
  }

  async session(): Promise<{ user?: { name?: string; email?: string } } | null> {
    return (await (await this.request("/auth/session")).json()) as { user?: { name?: string; email?: string } } | null
  }
}

/** Names of the recorded events and callbacks, in order. */
const names = (recorded: Recorded): string[] => recorded.calls.map((c) => c.name)
const paramsOf = (recorded: Recorded, name: string): Record<string, unknown>[] =>
  recorded.calls.filter((c) => c.name === name).map((c) => c.params)

function setsSessionCookie(response: Response): boolean {
  return response.headers
    .getSetCookie()
    .some((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/i.test(line))
}

const DASHBOARD = `${APP}/dashboard`
const NEW_USER_REDIRECT = `/welcome?${new URLSearchParams({ callbackUrl: DASHBOARD })}`
const NOT_LINKED = `${APP}/auth/signin?error=OAuthAccountNotLinked`

describe.each(["jwt", "database"] as const)("account linking with MemoryAdapter, %s sessions", (strategy) => {
  /** The user id the browser's session belongs to. */
  async function sessionUserId(
    browser: AppBrowser,
    adapter: ReturnType<typeof MemoryAdapter>,
  ): Promise<string | undefined> {
    const cookie = browser.cookies.get(SESSION_COOKIE)
    if (!cookie) return undefined
    if (strategy === "database") return (await adapter.getSessionAndUser(hashSessionToken(cookie)))?.user.id
    return (await decode({ token: cookie, secret: SECRET, salt: SESSION_COOKIE }))?.sub ?? undefined
  }

  test("new user: createUser, linkAccount, signUp, pages.newUser with the callbackUrl", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op", "alice")
    expect(recorded.errors).toEqual([])
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(NEW_USER_REDIRECT)

    const user = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "alice" })) as AdapterUser
    expect(user).toMatchObject({ email: "alice@example.test", name: "User alice", emailVerified: null })
    expect(await sessionUserId(browser, adapter)).toBe(user.id)

    const jwt = strategy === "jwt" ? ["callbacks.jwt"] : []
    expect(names(recorded)).toEqual([
      "callbacks.signIn",
      "events.createUser",
      "events.linkAccount",
      ...jwt,
      "events.signIn",
    ])
    expect(paramsOf(recorded, "events.createUser")[0].user).toMatchObject({ id: user.id, email: "alice@example.test" })
    expect(paramsOf(recorded, "events.linkAccount")[0]).toMatchObject({
      user: { id: user.id },
      account: { provider: "op", providerAccountId: "alice", type: "oidc", userId: user.id },
      profile: { email: "alice@example.test" },
    })
    if (strategy === "jwt") {
      expect(paramsOf(recorded, "callbacks.jwt")[0]).toMatchObject({
        trigger: "signUp",
        isNewUser: true,
        user: { id: user.id },
        account: { provider: "op", providerAccountId: "alice" },
      })
    }
    expect(paramsOf(recorded, "events.signIn")[0]).toMatchObject({ isNewUser: true, user: { id: user.id } })
    expect((await browser.session())?.user).toMatchObject({ email: "alice@example.test", name: "User alice" })
  })

  test("a known account signs in as its user: nothing created, no newUser page", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    await new AppBrowser(config).signIn("op", "bob")
    const user = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "bob" })) as AdapterUser
    recorded.calls.length = 0

    const browser = new AppBrowser(config)
    const response = await browser.signIn("op", "bob")
    expect(recorded.errors).toEqual([])
    expect(response.headers.get("location")).toBe(DASHBOARD)
    expect(await sessionUserId(browser, adapter)).toBe(user.id)
    expect(names(recorded)).toEqual([
      "callbacks.signIn",
      ...(strategy === "jwt" ? ["callbacks.jwt"] : []),
      "events.signIn",
    ])
    // The signIn callback sees the stored user, not the one mapped from the provider.
    expect(paramsOf(recorded, "callbacks.signIn")[0].user).toMatchObject({ id: user.id })
    if (strategy === "jwt") {
      expect(paramsOf(recorded, "callbacks.jwt")[0]).toMatchObject({ trigger: "signIn", isNewUser: false })
    }
    expect(paramsOf(recorded, "events.signIn")[0]).toMatchObject({ isNewUser: false, user: { id: user.id } })
  })

  test("signed in, a new account is linked to the current user", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const browser = new AppBrowser(config)
    await browser.signIn("op", "carol")
    const carol = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "carol" })) as AdapterUser
    recorded.calls.length = 0

    // Another account (other provider, other email) while signed in as carol.
    const response = await browser.signIn("op2", "carol-work")
    expect(recorded.errors).toEqual([])
    expect(response.headers.get("location")).toBe(DASHBOARD)
    expect(await adapter.getUserByAccount({ provider: "op2", providerAccountId: "carol-work" })).toMatchObject({
      id: carol.id,
    })
    expect(await adapter.getUserByEmail("carol-work@example.test")).toBeNull()
    expect(await sessionUserId(browser, adapter)).toBe(carol.id)
    expect(names(recorded)).toEqual([
      "callbacks.signIn",
      "events.linkAccount",
      ...(strategy === "jwt" ? ["callbacks.jwt"] : []),
      "events.signIn",
    ])
    expect(paramsOf(recorded, "events.linkAccount")[0]).toMatchObject({
      user: { id: carol.id },
      account: { provider: "op2", providerAccountId: "carol-work", userId: carol.id },
    })
    expect(paramsOf(recorded, "events.signIn")[0]).toMatchObject({ isNewUser: false })
    expect((await browser.session())?.user?.email).toBe("carol@example.test")
  })

  test("a revoked session links nothing: the new account becomes a user of its own", async () => {
    const { config, adapter } = makeConfig({ strategy })
    const browser = new AppBrowser(config)
    await browser.signIn("op", "gina")
    const gina = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "gina" })) as AdapterUser
    // "Sign out everywhere" (or an admin revocation) ends every session of gina, this copied cookie included.
    await Gatehouse(config).revokeUserSessions(gina.id)

    const response = await browser.signIn("op2", "mallory")
    expect(response.status).toBe(302)
    const mallory = (await adapter.getUserByAccount({ provider: "op2", providerAccountId: "mallory" })) as AdapterUser
    expect(mallory.id).not.toBe(gina.id)
    expect(mallory.email).toBe("mallory@example.test")
    expect(await adapter.getUserByAccount({ provider: "op", providerAccountId: "gina" })).toMatchObject({ id: gina.id })
    expect(await sessionUserId(browser, adapter)).toBe(mallory.id)
  })

  test("a known account while signed in as another user → OAuthAccountNotLinked, no session issued", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    await new AppBrowser(config).signIn("op", "dave")
    const dave = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "dave" })) as AdapterUser
    const browser = new AppBrowser(config)
    await browser.signIn("op", "erin")
    const erin = (await adapter.getUserByAccount({ provider: "op", providerAccountId: "erin" })) as AdapterUser
    recorded.calls.length = 0

    const response = await browser.signIn("op", "dave")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(NOT_LINKED)
    expect(setsSessionCookie(response)).toBe(false)
    expect(recorded.errors.map((e) => (e as AuthError).type)).toEqual(["OAuthAccountNotLinked"])
    expect(names(recorded)).toEqual(["callbacks.signIn"])
    // Still erin (the failed sign-in changed nothing), and dave's account still belongs to dave.
    expect(await sessionUserId(browser, adapter)).toBe(erin.id)
    expect(await adapter.getUserByAccount({ provider: "op", providerAccountId: "dave" })).toMatchObject({ id: dave.id })
  })

  test("the email matches an existing user, linking not allowed → OAuthAccountNotLinked, no session", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const existing = await adapter.createUser({ id: "user-frank", email: "frank@example.test", emailVerified: null })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op", "frank")
    expect(response.headers.get("location")).toBe(NOT_LINKED)
    expect(setsSessionCookie(response)).toBe(false)
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
    expect(recorded.errors.map((e) => (e as AuthError).type)).toEqual(["OAuthAccountNotLinked"])
    expect(names(recorded)).toEqual(["callbacks.signIn"])
    expect(await adapter.getUserByAccount({ provider: "op", providerAccountId: "frank" })).toBeNull()
    expect(await adapter.getUserByEmail("frank@example.test")).toEqual(existing)
  })

  test("GHSA-g38m: allowDangerousEmailAccountLinking never links to a user whose email is unverified", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const squatter = await adapter.createUser({ id: "user-henry", email: "henry@example.test", emailVerified: null })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op-danger", "henry")
    expect(response.headers.get("location")).toBe(NOT_LINKED)
    expect(setsSessionCookie(response)).toBe(false)
    expect(recorded.errors.map((e) => (e as AuthError).type)).toEqual(["OAuthAccountNotLinked"])
    expect(await adapter.getUserByAccount({ provider: "op-danger", providerAccountId: "henry" })).toBeNull()
    expect(await adapter.getUserByEmail("henry@example.test")).toEqual(squatter)
  })

  test("the email matches a verified user, allowDangerousEmailAccountLinking → linked, no createUser event", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const existing = await adapter.createUser({
      id: "user-grace",
      email: "grace@example.test",
      emailVerified: new Date("2026-01-01T00:00:00Z"),
    })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op-danger", "grace")
    expect(recorded.errors).toEqual([])
    expect(response.headers.get("location")).toBe(DASHBOARD)
    expect(await adapter.getUserByAccount({ provider: "op-danger", providerAccountId: "grace" })).toMatchObject({
      id: existing.id,
    })
    expect(await sessionUserId(browser, adapter)).toBe(existing.id)
    // Gatehouse fix of a reference quirk: no createUser event for a user that already existed.
    expect(names(recorded)).toEqual([
      "callbacks.signIn",
      "events.linkAccount",
      ...(strategy === "jwt" ? ["callbacks.jwt"] : []),
      "events.signIn",
    ])
    expect(paramsOf(recorded, "events.signIn")[0]).toMatchObject({ isNewUser: false, user: { id: existing.id } })
  })

  test("profile() throws → sign-in page with OAuthCallbackError; OAuthProfileParseError logged; no session", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op-bad-profile", "heidi")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${APP}/auth/signin?error=OAuthCallbackError`)
    expect(setsSessionCookie(response)).toBe(false)
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
    const types = recorded.errors.map((e) => (e as AuthError).type)
    expect(types).toContain("OAuthProfileParseError")
    const parseError = recorded.errors.find((e) => (e as AuthError).type === "OAuthProfileParseError") as AuthError
    expect((parseError.cause as { err?: Error }).err?.message).toBe("unexpected profile shape")
    expect(recorded.calls).toEqual([])
    expect(await adapter.getUserByEmail("heidi@example.test")).toBeNull()
  })
})

describe("without an adapter", () => {
  test("the JWT sub is the same on every sign-in of an account (derived from provider and account id)", async () => {
    const { config, recorded } = makeConfig({ adapter: false })
    const subs: unknown[] = []
    for (const login of ["ivan", "ivan", "judy"]) {
      const browser = new AppBrowser(config)
      const response = await browser.signIn("op", login)
      expect(response.headers.get("location")).toBe(DASHBOARD)
      const token = await decode({ token: browser.cookies.get(SESSION_COOKIE), secret: SECRET, salt: SESSION_COOKIE })
      subs.push(token?.sub)
    }
    expect(recorded.errors).toEqual([])
    expect(subs[0]).toBe(subs[1])
    expect(subs[0]).toBe(await stableUserId("op", "ivan"))
    expect(subs[2]).toBe(await stableUserId("op", "judy"))
    expect(subs[2]).not.toBe(subs[0])
    // No adapter: never a new user, so no newUser page and trigger "signIn".
    expect(paramsOf(recorded, "callbacks.jwt").map((p) => p.trigger)).toEqual(["signIn", "signIn", "signIn"])
  })

  test("profile() throws → OAuthCallbackError with no session", async () => {
    const { config, recorded } = makeConfig({ adapter: false })
    const browser = new AppBrowser(config)
    const response = await browser.signIn("op-bad-profile", "kim")
    expect(response.headers.get("location")).toBe(`${APP}/auth/signin?error=OAuthCallbackError`)
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
    expect(recorded.errors.map((e) => (e as AuthError).type)).toContain("OAuthProfileParseError")
  })
})

describe("a failed account link never leaves a user without an account", () => {
  test("an adapter without transaction(): the new user is deleted again when linkAccount fails", async () => {
    const { config, adapter, recorded } = makeConfig({ strategy: "jwt" })
    let failLink = true
    const flaky = {
      ...adapter,
      linkAccount: async (account: Parameters<typeof adapter.linkAccount>[0]) => {
        if (failLink) throw new Error("connection reset")
        return adapter.linkAccount(account)
      },
    }
    const broken = new AppBrowser({ ...config, adapter: flaky })
    const failed = await broken.signIn("op", "frank")
    expect(failed.headers.get("location")).toBe(`${APP}/auth/error?error=Configuration`)
    expect(setsSessionCookie(failed)).toBe(false)
    expect(await adapter.getUserByEmail("frank@example.test")).toBeNull()
    expect(names(recorded)).not.toContain("events.createUser")

    failLink = false
    const again = await new AppBrowser({ ...config, adapter: flaky }).signIn("op", "frank")
    expect(again.headers.get("location")).toBe(NEW_USER_REDIRECT)
    expect(await adapter.getUserByAccount({ provider: "op", providerAccountId: "frank" })).toMatchObject({
      email: "frank@example.test",
    })
  })
})
