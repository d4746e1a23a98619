// The explicit link flow (accounts.md §2.3, acceptance row AC2): alice (credentials) links the OP account `carol`,
// whose verified email is another stored user's; the account goes to alice only, no session changes, and a fresh
// browser signing in through the OP as carol becomes alice. Real oidc-provider; the Fetch flavour as the app.
import { Gatehouse } from "../../lib/web"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Credentials from "../../lib/providers/credentials"
import type { AuditEvent } from "../../lib/core/kernel/audit"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"

const APP = "http://app.test"
const SECRET = "link-secret-0123456789abcdef0123456789abcdef"
let op: StartedOidcProvider

beforeAll(async () => {
  op = await startOidcProvider({
    redirectUris: [`${APP}/auth/callback/idp`],
    claims: (id) => ({ sub: id, email: `${id}@idp.example`, email_verified: true }),
  })
})
afterAll(async () => op.close())

function app(features: { accountRoutes?: boolean } = { accountRoutes: true }) {
  const adapter = MemoryAdapter()
  const events: AuditEvent[] = []
  const gatehouse = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    features,
    account: {},
    audit: { sink: (e) => void events.push(e) },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({ authorize: async (c) => adapter.getUser(String(c.username)) }),
      { ...testOidcProvider(op, "idp"), allowDangerousEmailAccountLinking: true },
    ],
  })
  const call = async (
    jar: Map<string, string>,
    path: string,
    init: { form?: Record<string, string>; json?: unknown } = {},
  ) => {
    const headers = new Headers({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") })
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    } else if (init.json !== undefined) {
      headers.set("content-type", "application/json")
      headers.set("accept", "application/json")
      body = JSON.stringify(init.json)
    }
    const request = new Request(`${APP}${path}`, { method: body === undefined ? "GET" : "POST", headers, body })
    const response = await (body === undefined ? gatehouse.handlers.GET(request) : gatehouse.handlers.POST(request))
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      if (/Max-Age=0/i.test(line)) jar.delete(pair!.slice(0, eq))
      else jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    return response
  }
  const csrf = async (jar: Map<string, string>) =>
    ((await (await call(jar, "/auth/csrf")).json()) as { csrfToken: string }).csrfToken
  return { adapter, events, call, csrf, gatehouse }
}

describe("linkAccount", () => {
  it("AC2 the account goes to the user who started the link, never by email; no session changes", async () => {
    const { adapter, events, call, csrf } = app()
    await adapter.createUser({ id: "alice", email: "alice@example.com", emailVerified: new Date() })
    await adapter.createUser({ id: "carol-user", email: "carol@idp.example", emailVerified: new Date() })
    const browser = new Map<string, string>()
    const signIn = await call(browser, "/auth/callback/credentials", {
      form: { csrfToken: await csrf(browser), username: "alice" },
    })
    expect(signIn.status).toBe(302)
    const sessionBefore = browser.get("authjs.session-token")
    const start = await call(browser, "/auth/account/link", {
      json: { csrfToken: await csrf(browser), provider: "idp", callbackUrl: `${APP}/settings` },
    })
    expect(start.status).toBe(200)
    const { url } = (await start.json()) as { url: string }
    expect(url.startsWith(op.issuer)).toBe(true)
    expect(browser.has("gatehouse.link")).toBe(true)
    const delivery = await driveAuthorization(url, `${APP}/auth/callback/`, { login: "carol" })
    const callback = await call(browser, `${delivery.url.pathname}?${delivery.params}`)
    expect(callback.status).toBe(302)
    expect(callback.headers.get("location")).toBe(`${APP}/settings?linked=idp`)
    expect(browser.has("gatehouse.link")).toBe(false)
    expect(browser.get("authjs.session-token")).toBe(sessionBefore)
    const session = (await (await call(browser, "/auth/session")).json()) as { user: { email: string } }
    expect(session.user.email).toBe("alice@example.com")
    expect((await adapter.getUserByAccount({ provider: "idp", providerAccountId: "carol" }))?.id).toBe("alice")
    expect(await adapter.listAccountsByUserId("carol-user")).toEqual([])
    expect(events.filter((e) => e.type === "account.linked").map((e) => [e.userId, e.provider, e.outcome])).toEqual([
      ["alice", "idp", "success"],
    ])

    // A fresh browser signing in through the OP as carol becomes alice.
    const fresh = new Map<string, string>()
    const begin = await call(fresh, "/auth/signin/idp", {
      form: { csrfToken: await csrf(fresh), callbackUrl: `${APP}/` },
    })
    const again = await driveAuthorization(begin.headers.get("location")!, `${APP}/auth/callback/`, { login: "carol" })
    await call(fresh, `${again.url.pathname}?${again.params}`)
    const freshSession = (await (await call(fresh, "/auth/session")).json()) as { user: { email: string } }
    expect(freshSession.user.email).toBe("alice@example.com")
  })

  it("an account already linked to another user is refused (error=AccountAlreadyLinked); a non-OAuth provider is 400", async () => {
    const { adapter, call, csrf } = app()
    await adapter.createUser({ id: "alice", email: "alice@example.com", emailVerified: new Date() })
    await adapter.createUser({ id: "dave", email: "dave@example.com", emailVerified: new Date() })
    await adapter.linkAccount({ userId: "dave", type: "oidc", provider: "idp", providerAccountId: "dan" })
    const browser = new Map<string, string>()
    await call(browser, "/auth/callback/credentials", { form: { csrfToken: await csrf(browser), username: "alice" } })
    const bad = await call(browser, "/auth/account/link", {
      json: { csrfToken: await csrf(browser), provider: "credentials" },
    })
    expect([bad.status, await bad.json()]).toEqual([400, { error: "InvalidProvider" }])
    const start = await call(browser, "/auth/account/link", {
      json: { csrfToken: await csrf(browser), provider: "idp", callbackUrl: `${APP}/settings` },
    })
    const { url } = (await start.json()) as { url: string }
    const delivery = await driveAuthorization(url, `${APP}/auth/callback/`, { login: "dan" })
    const callback = await call(browser, `${delivery.url.pathname}?${delivery.params}`)
    expect(callback.headers.get("location")).toBe(`${APP}/settings?error=AccountAlreadyLinked`)
    expect((await adapter.getUserByAccount({ provider: "idp", providerAccountId: "dan" }))?.id).toBe("dave")
    const anonymous = await call(new Map(), "/auth/account/link", { json: { provider: "idp" } })
    expect(anonymous.status).toBe(403)
  })

  it("the linkAccount server function (Fetch flavour) works with the routes off; it needs the origin guard", async () => {
    const { adapter, call, csrf, gatehouse } = app({})
    await adapter.createUser({ id: "alice", email: "alice@example.com", emailVerified: new Date() })
    const browser = new Map<string, string>()
    await call(browser, "/auth/callback/credentials", { form: { csrfToken: await csrf(browser), username: "alice" } })
    const cookie = [...browser].map(([k, v]) => `${k}=${v}`).join("; ")
    const crossSite = new Request(`${APP}/settings/link`, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example" },
    })
    await expect(gatehouse.linkAccount(crossSite, "idp")).rejects.toMatchObject({ type: "MissingCSRF" })
    const request = new Request(`${APP}/settings/link`, { method: "POST", headers: { cookie, origin: APP } })
    const url = await gatehouse.linkAccount(request, "idp", { redirectTo: `${APP}/settings` })
    expect(url.startsWith(op.issuer)).toBe(true)
    const answered = gatehouse.applyCookies(request, new Response(null, { status: 303, headers: { location: url } }))
    for (const line of answered.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      browser.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    expect(browser.has("gatehouse.link")).toBe(true)
    const delivery = await driveAuthorization(url, `${APP}/auth/callback/`, { login: "erin" })
    const callback = await call(browser, `${delivery.url.pathname}?${delivery.params}`)
    expect(callback.headers.get("location")).toBe(`${APP}/settings?linked=idp`)
    expect((await adapter.getUserByAccount({ provider: "idp", providerAccountId: "erin" }))?.id).toBe("alice")
  })
})
