// End to end: OIDC RP-initiated logout and back-channel logout (next-wave C.3) against a real oidc-provider that
// reaches the app over HTTP. Negative tokens are signed with the OP's own key (jose), so only the claim under test is bad.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { importJWK, SignJWT, type JWTPayload } from "jose"
import { Auth } from "../../lib/core"
import type { AuthConfig } from "../../lib/core/types"
import { MemoryAdapter } from "../../lib/adapters/memory"
import { MemoryStore } from "../../lib/store/memory"
import { SQLiteAdapter } from "../../lib/adapters/sqlite"
import { startOidcProvider, testOidcProvider, driveAuthorization } from "../fixtures/oauth/oidc-provider"
import type { StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

const SECRET = "oidc-logout-secret-0123456789abcdef0123456789abcdef"
const EVENT = "http://schemas.openid.net/event/backchannel-logout"
let app: Server
let APP: string
let op: StartedOidcProvider
let bareOp: StartedOidcProvider
let current: AuthConfig
let jwtConfig: AuthConfig
let dbConfig: AuthConfig
let adapter: ReturnType<typeof MemoryAdapter>
const store = MemoryStore()
const warnings: string[] = []
const backchannelErrors: unknown[] = []
const signOutEvents: Array<{ reason?: string }> = []

function makeConfig(extra: Partial<AuthConfig>): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    // One store for both strategies' configs, as instances of one app share it.
    store,
    logger: { error: () => undefined, warn: (code) => warnings.push(code), debug: () => undefined },
    events: { signOut: (message) => void signOutEvents.push(message as { reason?: string }) },
    providers: [
      testOidcProvider(op, "corp", {
        checks: ["pkce", "state", "nonce"],
        logout: { rpInitiated: true, backchannel: true },
      }),
      testOidcProvider(op, "plain", { checks: ["pkce", "state", "nonce"] }),
      testOidcProvider(bareOp, "bare", { checks: ["pkce", "state", "nonce"], logout: { rpInitiated: true } }),
    ],
    ...extra,
  }
}

beforeAll(async () => {
  // The app listens first: the OP registers URLs on its origin.
  app = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = chunks.length ? Buffer.concat(chunks) : undefined
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
      const request = new Request(`${APP}${req.url}`, { method: req.method, headers, body })
      void Auth(request, current).then(async (response) => {
        const out: Record<string, string | string[]> = {}
        response.headers.forEach((v, k) => (out[k] = v))
        out["set-cookie"] = response.headers.getSetCookie()
        res.writeHead(response.status, out)
        res.end(Buffer.from(await response.arrayBuffer()))
      })
    })
  })
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve))
  APP = `http://localhost:${(app.address() as AddressInfo).port}`
  op = await startOidcProvider({
    clientId: "app",
    redirectUris: [`${APP}/auth/callback/corp`, `${APP}/auth/callback/plain`],
    clientMetadata: {
      post_logout_redirect_uris: [`${APP}/auth/signout-callback/corp`],
      backchannel_logout_uri: `${APP}/auth/backchannel-logout/corp`,
      backchannel_logout_session_required: true,
    },
    extraClients: [
      {
        client_id: "rp2",
        client_secret: "rp2-secret-0123456789abcdef0123456789",
        redirect_uris: ["http://localhost:1/cb"],
        post_logout_redirect_uris: ["http://localhost:1/bye"],
      },
    ],
    features: { backchannelLogout: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  })
  op.provider.on("backchannel.error", (_ctx: unknown, error: unknown) => backchannelErrors.push(error))
  bareOp = await startOidcProvider({
    redirectUris: [`${APP}/auth/callback/bare`],
    features: { rpInitiatedLogout: { enabled: false } },
  })
  adapter = MemoryAdapter()
  jwtConfig = makeConfig({})
  dbConfig = makeConfig({ adapter, session: { strategy: "database" } })
})
afterAll(async () => {
  await op.close()
  await bareOp.close()
  app.closeAllConnections()
  await new Promise<void>((resolve) => app.close(() => resolve()))
})
beforeEach(() => {
  warnings.length = 0
  backchannelErrors.length = 0
  signOutEvents.length = 0
})

/** A browser: cookies for the app and for the OP. */
class Browser {
  cookies = new Map<string, string>()
  opJar = new Map<string, string>()
  async request(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const headers = new Headers(init.headers)
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const url = path.startsWith("http") ? path : `${APP}${path}`
    const response = await fetch(url, { method: init.method ?? "GET", headers, body, redirect: "manual" })
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
  async csrf(): Promise<string> {
    return ((await (await this.request("/auth/csrf")).json()) as { csrfToken: string }).csrfToken
  }
  async signIn(providerId: string, login = "alice"): Promise<void> {
    const start = await this.request(`/auth/signin/${providerId}`, {
      method: "POST",
      form: { csrfToken: await this.csrf(), callbackUrl: `${APP}/dashboard` },
    })
    const delivery = await driveAuthorization(start.headers.get("location") as string, `${APP}/auth/callback/`, {
      login,
      jar: this.opJar,
    })
    const callback = await this.request(`${delivery.url.pathname}?${delivery.params}`)
    expect(callback.headers.get("location")).toBe(`${APP}/dashboard`)
  }
  async session(): Promise<unknown> {
    return (await this.request("/auth/session")).json()
  }
  async signOut(extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
    return this.request("/auth/signout", {
      method: "POST",
      form: { csrfToken: await this.csrf(), callbackUrl: "/bye", ...extra },
      headers,
    })
  }
  /** Confirms the OP's end-session page ("Yes, sign me out"); returns where the OP sends the browser next. */
  async confirmEndSession(endSessionUrl: string): Promise<string> {
    const cookie = () => [...this.opJar].map(([k, v]) => `${k}=${v}`).join("; ")
    const page = await fetch(endSessionUrl, { headers: { cookie: cookie() }, redirect: "manual" })
    const html = await page.text()
    expect(page.status).toBe(200)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] as string
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string
    const confirm = await fetch(new URL(action, endSessionUrl), {
      method: "POST",
      headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ xsrf, logout: "yes" }),
      redirect: "manual",
    })
    return new URL(confirm.headers.get("location") as string, endSessionUrl).href
  }
}

async function postLogoutToken(provider: string, body: string, contentType = "application/x-www-form-urlencoded") {
  return fetch(`${APP}/auth/backchannel-logout/${provider}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  })
}

async function opToken(
  claims: JWTPayload,
  header: Record<string, unknown> = { typ: "logout+jwt" },
  alg = "RS256",
): Promise<string> {
  const key = await importJWK(op.signingKey as never, "RS256")
  return new SignJWT(claims).setProtectedHeader({ alg, kid: "op-rs256", ...header }).sign(key)
}

function logoutClaims(extra: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000)
  return {
    iss: op.issuer,
    aud: "app",
    iat: now,
    exp: now + 120,
    jti: `jti-${Math.random()}`,
    events: { [EVENT]: {} },
    sub: "alice",
    ...extra,
  }
}

/** How many database sessions of the user behind `login` (a corp account) were issued through `provider`. */
async function rowsOf(login: string, provider = "corp"): Promise<number> {
  const user = await adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
  if (!user) return 0
  return (await adapter.listSessionsByUserId(user.id)).filter((s) => s.provider === provider).length
}

async function rowsTotal(login: string): Promise<number> {
  const user = await adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
  return user ? (await adapter.listSessionsByUserId(user.id)).length : 0
}

describe("RP-initiated logout", () => {
  test("C1 database strategy: the session row goes, the OP's end-session URL carries the hint, back to /bye", async () => {
    current = dbConfig
    const browser = new Browser()
    await browser.signIn("corp", "carol")
    const user = await adapter.getUserByAccount({ provider: "corp", providerAccountId: "carol" })
    const account = await adapter.getAccount("carol", "corp")
    expect((await adapter.listSessionsByUserId(user!.id)).length).toBe(1)

    const response = await browser.signOut()
    expect(response.status).toBe(302)
    const location = response.headers.get("location") as string
    expect(location.startsWith(`${op.issuer}/session/end?`)).toBe(true)
    const url = new URL(location)
    expect(url.searchParams.get("client_id")).toBe("app")
    expect(url.searchParams.get("id_token_hint")).toBe(account?.id_token)
    expect(location).toContain(`post_logout_redirect_uri=${encodeURIComponent(`${APP}/auth/signout-callback/corp`)}`)
    expect(url.searchParams.get("state")).toBeTruthy()
    expect(await adapter.listSessionsByUserId(user!.id)).toEqual([])
    expect(browser.cookies.has("authjs.session-token")).toBe(false)

    const back = await browser.confirmEndSession(location)
    expect(back.startsWith(`${APP}/auth/signout-callback/corp?`)).toBe(true)
    const landing = await browser.request(back)
    expect(landing.status).toBe(302)
    expect(landing.headers.get("location")).toBe(`${APP}/bye`)
    expect(backchannelErrors).toEqual([])
  })

  test("C2 a tampered state, or one sealed for another provider, lands on the app origin with one warning", async () => {
    current = jwtConfig
    const browser = new Browser()
    await browser.signIn("corp", "dave")
    const location = new URL((await browser.signOut()).headers.get("location") as string)
    const state = location.searchParams.get("state") as string
    const tampered = `${state.slice(0, -4)}AAAA`
    const first = await browser.request(`/auth/signout-callback/corp?state=${tampered}`)
    expect(first.status).toBe(302)
    expect(first.headers.get("location")).toBe(APP)
    const foreign = await browser.request(`/auth/signout-callback/plain?state=${state}`)
    expect(foreign.status).toBe(302)
    expect(foreign.headers.get("location")).toBe(APP)
    expect(warnings.filter((w) => w === "signout-state-invalid")).toHaveLength(2)
  })

  test("C3 no end-session endpoint: local sign-out only, one warning across five sign-outs", async () => {
    current = jwtConfig
    for (let i = 0; i < 5; i++) {
      const browser = new Browser()
      await browser.signIn("bare", `erin${i}`)
      const response = await browser.signOut()
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe(`${APP}/bye`)
      expect(browser.cookies.has("authjs.session-token")).toBe(false)
    }
    expect(warnings.filter((w) => w === "rp-initiated-logout-unavailable")).toHaveLength(1)
  })

  test("C4 X-Auth-Return-Redirect answers 200 {url} and clears the session cookie; federated=false stays local", async () => {
    current = jwtConfig
    const browser = new Browser()
    await browser.signIn("corp", "frank")
    const response = await browser.signOut({}, { "X-Auth-Return-Redirect": "1" })
    expect(response.status).toBe(200)
    const { url } = (await response.json()) as { url: string }
    expect(url.startsWith(`${op.issuer}/session/end?`)).toBe(true)
    expect(new URL(url).searchParams.get("id_token_hint")).toMatch(/^ey/)
    expect(response.headers.getSetCookie().some((c) => /^authjs\.session-token=;.*Max-Age=0/i.test(c))).toBe(true)

    const local = new Browser()
    await local.signIn("corp", "frank")
    const plain = await local.signOut({ federated: "false" })
    expect(plain.headers.get("location")).toBe(`${APP}/bye`)
  })
})

describe("back-channel logout", () => {
  test("C5/C7/C12 the OP ends one OP session: that session ends (db and jwt), the other stays, replay refused", async () => {
    current = dbConfig
    const s1 = new Browser()
    const s2 = new Browser()
    await s1.signIn("corp", "alice")
    await s2.signIn("corp", "alice")
    expect(await rowsOf("alice")).toBe(2)

    // Capture the token the OP sends, then let the request through to the app.
    const captured: string[] = []
    const listener = (req: { url?: string; on: (e: string, f: (c: Buffer) => void) => void }) => {
      if (!req.url?.startsWith("/auth/backchannel-logout/")) return
      req.on("data", (c: Buffer) => captured.push(c.toString()))
    }
    app.prependListener("request", listener as never)
    // A second RP starts logout at the OP for S1's OP session (C12).
    const endUrl = `${op.issuer}/session/end?client_id=rp2&post_logout_redirect_uri=${encodeURIComponent("http://localhost:1/bye")}`
    const next = await s1.confirmEndSession(endUrl)
    app.removeListener("request", listener as never)
    expect(next).toBe("http://localhost:1/bye")
    expect(backchannelErrors).toEqual([])
    expect(captured.join("")).toContain("logout_token=")

    expect(await s1.session()).toBeNull()
    expect(await s2.session()).toMatchObject({ user: { name: "User alice" } })
    expect(await rowsOf("alice")).toBe(1)
    expect(signOutEvents.some((e) => e.reason === "backchannel")).toBe(true)

    // C7: the same token again.
    const replay = await postLogoutToken("corp", captured.join(""))
    expect(replay.status).toBe(400)
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_request")
    expect(await rowsOf("alice")).toBe(1)
  })

  test("C5 jwt strategy: the session whose sid the OP ended reads as null and its cookie is cleared", async () => {
    current = jwtConfig
    const s1 = new Browser()
    const s2 = new Browser()
    await s1.signIn("corp", "gina")
    await s2.signIn("corp", "gina")
    const next = await s1.confirmEndSession(
      `${op.issuer}/session/end?client_id=rp2&post_logout_redirect_uri=${encodeURIComponent("http://localhost:1/bye")}`,
    )
    expect(next).toBe("http://localhost:1/bye")
    expect(backchannelErrors).toEqual([])
    const read = await s1.request("/auth/session")
    expect(await read.json()).toBeNull()
    expect(read.headers.getSetCookie().some((c) => /^authjs\.session-token=;.*Max-Age=0/i.test(c))).toBe(true)
    expect(await s2.session()).toMatchObject({ user: { name: "User gina" } })
  })

  test("C6/C9 a sub-only token ends every corp session of the user, not other providers; a later sign-in stays", async () => {
    current = dbConfig
    const browsers = [new Browser(), new Browser(), new Browser()]
    for (const b of browsers) await b.signIn("corp", "bob")
    // The same user also signs in through another provider (linked while signed in; that session replaces the corp one).
    const other = new Browser()
    await other.signIn("corp", "bob")
    await other.signIn("plain", "bob")
    expect(await rowsOf("bob")).toBe(3)
    expect(await rowsTotal("bob")).toBe(4)
    const jwtOld = new Browser()
    current = jwtConfig
    await jwtOld.signIn("corp", "bob")

    // The watermark must be after those sign-ins (OP clock, whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const token = await opToken(logoutClaims({ sub: "bob" }))
    current = dbConfig
    const response = await postLogoutToken("corp", new URLSearchParams({ logout_token: token }).toString())
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(await response.text()).toBe("")
    expect(await rowsOf("bob")).toBe(0)
    expect(await rowsTotal("bob")).toBe(1)
    expect(await other.session()).toMatchObject({ user: { name: "User bob" } })

    current = jwtConfig
    expect(await jwtOld.session()).toBeNull()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const later = new Browser()
    await later.signIn("corp", "bob")
    for (let i = 0; i < 3; i++) expect(await later.session()).toMatchObject({ user: { name: "User bob" } })
    expect(await jwtOld.session()).toBeNull()
  })

  test("C8 negative matrix: every bad request or token is 400 and ends nothing", async () => {
    current = dbConfig
    const victim = new Browser()
    await victim.signIn("corp", "hank")
    const form = (token: string) => new URLSearchParams({ logout_token: token }).toString()
    const good = () => logoutClaims({ sub: "hank" })
    const header = (h: Record<string, string>) => `${Buffer.from(JSON.stringify(h)).toString("base64url")}`
    const unsigned = `${header({ alg: "none" })}.${Buffer.from(JSON.stringify(good())).toString("base64url")}.`
    const valid = await opToken(good())
    const flipped = `${valid.slice(0, -6)}${valid.slice(-6, -5) === "A" ? "B" : "A"}${valid.slice(-5)}`
    const { nonce: _n, ...noEvents } = { ...good(), nonce: undefined }
    delete (noEvents as JWTPayload).events
    const now = Math.floor(Date.now() / 1000)
    const hs = await new SignJWT(good())
      .setProtectedHeader({ alg: "HS256", typ: "logout+jwt" })
      .sign(new TextEncoder().encode(op.clientSecret))
    const idToken = (await adapter.getAccount("hank", "corp"))?.id_token as string
    const bodies: Array<[string, string]> = [
      ["missing logout_token", ""],
      ["two logout_token fields", `${form(valid)}&${form(valid)}`],
      ["alg none", form(unsigned)],
      ["flipped signature", form(flipped)],
      ["iss with a slash", form(await opToken({ ...good(), iss: `${op.issuer}/` }))],
      ["aud another client", form(await opToken({ ...good(), aud: "rp2" }))],
      ["aud with an extra", form(await opToken({ ...good(), aud: ["app", "x"] }))],
      ["no events", form(await opToken(noEvents))],
      ["events member not an object", form(await opToken({ ...good(), events: { [EVENT]: "x" } }))],
      ["nonce", form(await opToken({ ...good(), nonce: "n" }))],
      ["neither sub nor sid", form(await opToken({ ...good(), sub: undefined }))],
      ["exp 2 min past", form(await opToken({ ...good(), exp: now - 120 }))],
      ["iat 2 min ahead", form(await opToken({ ...good(), iat: now + 120, exp: now + 240 }))],
      ["iat 11 min old", form(await opToken({ ...good(), iat: now - 660, exp: now + 120 }))],
      ["typ JWT", form(await opToken(good(), { typ: "JWT" }))],
      ["HS256 with the client secret", form(hs)],
      ["an ID token", form(idToken)],
    ]
    for (const [name, body] of bodies) {
      const response = await postLogoutToken("corp", body)
      expect({ name, status: response.status }).toEqual({ name, status: 400 })
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(((await response.json()) as { error: string }).error).toBe("invalid_request")
    }
    const wrongType = await postLogoutToken("corp", JSON.stringify({ logout_token: valid }), "application/json")
    expect(wrongType.status).toBe(400)
    const notEnabled = await postLogoutToken("plain", form(valid))
    expect(notEnabled.status).toBe(400)
    expect(await victim.session()).toMatchObject({ user: { name: "User hank" } })
  })

  test("SQLite adapter: RP-initiated logout finds the provider on the row; a sid token deletes only that row", async () => {
    const sqlite = SQLiteAdapter(":memory:")
    current = makeConfig({ adapter: sqlite, session: { strategy: "database" } })
    const s1 = new Browser()
    const s2 = new Browser()
    await s1.signIn("corp", "ivy")
    await s2.signIn("corp", "ivy")
    const user = await sqlite.getUserByAccount({ provider: "corp", providerAccountId: "ivy" })
    const rows = await sqlite.listSessionsByUserId(user!.id)
    expect(rows.map((r) => [r.provider, r.idpSub])).toEqual([
      ["corp", "ivy"],
      ["corp", "ivy"],
    ])
    const next = await s1.confirmEndSession(
      `${op.issuer}/session/end?client_id=rp2&post_logout_redirect_uri=${encodeURIComponent("http://localhost:1/bye")}`,
    )
    expect(next).toBe("http://localhost:1/bye")
    expect(backchannelErrors).toEqual([])
    expect(await s1.session()).toBeNull()
    expect(await s2.session()).toMatchObject({ user: { name: "User ivy" } })
    expect(await sqlite.listSessionsByUserId(user!.id)).toHaveLength(1)
    const signOut = await s2.signOut()
    expect(signOut.headers.get("location")?.startsWith(`${op.issuer}/session/end?`)).toBe(true)
    expect(await sqlite.listSessionsByUserId(user!.id)).toHaveLength(0)
  })

  test("C10/C11 GET is refused without reading a body; a 20 KB body is refused", async () => {
    current = dbConfig
    const get = await fetch(`${APP}/auth/backchannel-logout/corp`)
    expect(get.status).toBe(400)
    expect(get.headers.get("cache-control")).toBe("no-store")
    expect(((await get.json()) as { error: string }).error).toBe("invalid_request")
    const big = await postLogoutToken("corp", `logout_token=${"a".repeat(20 * 1024)}`)
    expect(big.status).toBe(400)
    expect(((await big.json()) as { error_description: string }).error_description).toMatch(/too large/)
  })

  test("C.2 rule 2: a logout token never passes as an ID token", async () => {
    const { verifyIdToken } = await import("../../lib/oauth/id-token")
    const { normalizeOAuthProvider } = await import("../../lib/oauth")
    const provider = normalizeOAuthProvider(testOidcProvider(op, "corp"), {} as never)
    const as = { issuer: op.issuer, jwks_uri: `${op.issuer}/jwks`, id_token_signing_alg_values_supported: ["RS256"] }
    await expect(verifyIdToken(provider, as, await opToken(logoutClaims()))).rejects.toThrow(/ID token/)
    await expect(verifyIdToken(provider, as, await opToken(logoutClaims(), { typ: "JWT" }))).rejects.toThrow()
  })
})
