// tokens.md T2: native-app and CLI sign-in through the browser (RFC 8252): a registered redirect URI, a PKCE-bound
// single-use code behind a confirm page, exchanged at POST /auth/token for a bearer session.
import express from "express"
import type { Express } from "express"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { driveAuthorization, startOidcProvider } from "../fixtures/oauth/oidc-provider"
import { once } from "node:events"
import { createHash, randomBytes } from "node:crypto"
import request from "supertest"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Credentials from "../../lib/providers/credentials"
import { InvalidConfig } from "../../lib/errors"
import { SECRET, cookieHeader, cookieJar } from "../express/apps"

const quiet = { error: () => undefined, warn: () => undefined, debug: () => undefined }

async function nativeApp(native: Partial<NonNullable<AuthConfig["native"]>> = {}) {
  const events = { nativeSignIn: [] as unknown[], signOut: [] as unknown[], securityAlert: [] as unknown[] }
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt", bearer: true },
    native: { redirectUris: ["myapp://cb", "http://127.0.0.1/cb"], name: "Test CLI", ...native },
    logger: quiet,
    events: {
      nativeSignIn: (m) => void events.nativeSignIn.push(m),
      signOut: (m) => void events.signOut.push(m),
      securityAlert: (m) => void events.securityAlert.push(m),
    },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) =>
          c.username === "alice" && c.password === "alice-pw"
            ? { id: "user-alice", name: "alice", email: "alice@example.test" }
            : null,
      }),
    ],
  }
  const app = express()
  app.use("/auth", Gatehouse(config).handlers)
  // One listening server, so every request of a flow has the same origin (the continuation URL is same-origin).
  const server = app.listen(0, "127.0.0.1")
  servers.push(server)
  await once(server, "listening")
  return { app: server as unknown as Express, events }
}

const servers: Server[] = []
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

const setCookies = (res: request.Response): string[] => (res.headers["set-cookie"] as unknown as string[]) ?? []

/** Start, browser sign-in, and the confirm page: the page's HTML, the browser's cookies and the continuation. */
async function startAndSignIn(app: Express, callbackUrl = "myapp://cb", state = "st-1") {
  const { verifier, challenge } = pkce()
  const query = new URLSearchParams({ callbackUrl, code_challenge: challenge, code_challenge_method: "S256", state })
  const start = await request(app).get(`/auth/signin/credentials?${query}`)
  expect(start.status).toBe(302)
  const signinUrl = new URL(start.headers.location as string)
  const continuation = signinUrl.searchParams.get("callbackUrl")!
  const csrf = await request(app).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const signIn = await request(app)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, username: "alice", password: "alice-pw", callbackUrl: continuation })
  jar = cookieJar(jar, signIn.headers["set-cookie"])
  const page = await request(app)
    .get(new URL(continuation).pathname + new URL(continuation).search)
    .set("Cookie", cookieHeader(jar))
  jar = cookieJar(jar, page.headers["set-cookie"])
  return { start, signIn, page, jar, continuation, verifier, challenge, csrfToken: csrf.body.csrfToken as string }
}

async function confirm(app: Express, flow: Awaited<ReturnType<typeof startAndSignIn>>, action = "allow") {
  const ctx = /name="ctx" value="([^"]+)"/.exec(flow.page.text)![1]!.replace(/&amp;/g, "&")
  return request(app)
    .post("/auth/native")
    .set("Cookie", cookieHeader(flow.jar))
    .type("form")
    .send({ csrfToken: flow.csrfToken, ctx, action })
}

describe("tokens T2: native-app and CLI sign-in", () => {
  test("T2-1 the start goes to the sign-in page with the continuation; the page is a POST form with csrfToken, ctx, allow/deny", async () => {
    const { app } = await nativeApp()
    const flow = await startAndSignIn(app)
    expect(flow.start.headers.location).toMatch(/\/auth\/signin\?callbackUrl=/)
    expect(flow.continuation).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/native\?ctx=/)
    expect(flow.signIn.status).toBe(302)
    expect(flow.signIn.headers.location).toBe(flow.continuation)
    expect(flow.page.status).toBe(200)
    expect(flow.page.headers["content-type"]).toContain("text/html")
    expect(flow.page.headers["x-frame-options"]).toBe("DENY")
    expect(flow.page.headers["cache-control"]).toContain("no-store")
    expect(flow.page.text).toContain('<form method="post" action="/auth/native">')
    expect(flow.page.text).toContain('name="csrfToken"')
    expect(flow.page.text).toContain('name="ctx"')
    expect(flow.page.text).toContain('name="action" value="allow" autofocus')
    expect(flow.page.text).toContain('name="action" value="deny"')
    expect(flow.page.text).toContain("Sign in to Test CLI?")
    expect(flow.page.text).toContain("alice@example.test")
    expect(flow.page.text).toContain("It will open myapp:")
  })

  test("T2-2 allow: a 43-character code to the app with state and iss; the exchange gives a bearer that reads alice", async () => {
    const { app, events } = await nativeApp()
    const flow = await startAndSignIn(app)
    const allowed = await confirm(app, flow)
    expect(allowed.status).toBe(302)
    expect(allowed.headers["cache-control"]).toContain("no-store")
    const location = allowed.headers.location as string
    expect(location.startsWith("myapp://cb?")).toBe(true)
    const params = new URLSearchParams(location.slice("myapp://cb?".length))
    expect(params.get("code")).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(params.get("state")).toBe("st-1")
    expect(params.get("iss")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth$/)
    const exchange = await request(app)
      .post("/auth/token")
      .send({ code: params.get("code"), code_verifier: flow.verifier })
    expect(exchange.status).toBe(200)
    expect(exchange.headers["cache-control"]).toContain("no-store")
    expect(typeof exchange.body.token).toBe("string")
    expect(typeof exchange.body.expires).toBe("number")
    const session = await request(app).get("/auth/session").set("Authorization", `Bearer ${exchange.body.token}`)
    expect(session.body.user.email).toBe("alice@example.test")
    expect(events.nativeSignIn).toHaveLength(1)

    // T2-3: the same code again.
    const again = await request(app)
      .post("/auth/token")
      .send({ code: params.get("code"), code_verifier: flow.verifier })
    expect(again.status).toBe(400)
    expect(again.body).toEqual({ error: "invalid_grant", error_description: "code already used" })
    const after = await request(app).get("/auth/session").set("Authorization", `Bearer ${exchange.body.token}`)
    expect(after.body).toBeNull()
    expect(events.securityAlert).toEqual([{ type: "native.code_reuse", userId: "user-alice" }])
    expect(events.signOut).toHaveLength(1)
    expect((events.signOut[0] as { reason?: string }).reason).toBe("revoked")
  })

  test("T2-4 a wrong verifier burns the code: the right one then fails too", async () => {
    const { app } = await nativeApp()
    const flow = await startAndSignIn(app)
    const code = new URLSearchParams((await confirm(app, flow)).headers.location.split("?")[1]).get("code")
    const wrong = await request(app).post("/auth/token").type("form").send({ code, code_verifier: pkce().verifier })
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_grant"])
    const right = await request(app).post("/auth/token").type("form").send({ code, code_verifier: flow.verifier })
    expect([right.status, right.body.error]).toEqual([400, "invalid_grant"])
    const malformed = await request(app).post("/auth/token").send({ code, code_verifier: "short" })
    expect([malformed.status, malformed.body.error]).toEqual([400, "invalid_request"])
    const grant = await request(app)
      .post("/auth/token")
      .send({ code, code_verifier: flow.verifier, grant_type: "password" })
    expect([grant.status, grant.body.error]).toEqual([400, "unsupported_grant_type"])
  })

  test("T2-5 unregistered redirect URIs and bad challenges are refused before any sign-in, with no cookie", async () => {
    const { app } = await nativeApp()
    const { challenge } = pkce()
    const cases: Array<[Record<string, string>, string]> = [
      [{ callbackUrl: "myapp://evil", code_challenge: challenge }, "redirect_uri_not_registered"],
      [{ callbackUrl: "https://evil.example/cb", code_challenge: challenge }, "redirect_uri_not_registered"],
      [{ callbackUrl: "http://127.0.0.2:5000/cb", code_challenge: challenge }, "redirect_uri_not_registered"],
      [{ callbackUrl: "myapp://cb?x=1", code_challenge: challenge }, "redirect_uri_not_registered"],
      [
        { callbackUrl: "myapp://cb", code_challenge: challenge, code_challenge_method: "plain" },
        "invalid_code_challenge",
      ],
      [{ callbackUrl: "myapp://cb", code_challenge: challenge.slice(0, 42) }, "invalid_code_challenge"],
    ]
    for (const [query, code] of cases) {
      const res = await request(app).get(`/auth/signin/credentials?${new URLSearchParams(query)}`)
      expect(res.status).toBe(302)
      expect(res.headers.location).toMatch(new RegExp(`/auth/error\\?error=NativeSignInError&code=${code}$`))
      expect(setCookies(res)).toHaveLength(0)
    }
    const page = await request(app).get("/auth/error?error=NativeSignInError&code=redirect_uri_not_registered")
    expect(page.status).toBe(400)
    expect(page.text).toContain("This sign-in request from an app is not valid. Start again from the app.")
  })

  test("T2-6 a registered loopback URI accepts any port: the code comes to that port", async () => {
    const { app } = await nativeApp()
    const flow = await startAndSignIn(app, "http://127.0.0.1:53682/cb")
    const allowed = await confirm(app, flow)
    expect(allowed.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:53682\/cb\?code=[A-Za-z0-9_-]{43}&state=st-1&iss=/)
    expect(flow.page.text).toContain("a program on this computer (port 53682)")
  })

  test("T2-8 deny: access_denied to the app, no code stored", async () => {
    const { app } = await nativeApp()
    const flow = await startAndSignIn(app)
    const denied = await confirm(app, flow, "deny")
    expect(denied.status).toBe(302)
    expect(denied.headers.location).toMatch(/^myapp:\/\/cb\?error=access_denied&state=st-1&iss=/)
    const guess = await request(app)
      .post("/auth/token")
      .send({ code: randomBytes(32).toString("base64url"), code_verifier: flow.verifier })
    expect([guess.status, guess.body.error]).toEqual([400, "invalid_grant"])
  })

  test("T2-9 a code older than codeTtl is refused", async () => {
    const { app } = await nativeApp({ codeTtl: 1 })
    const flow = await startAndSignIn(app)
    const code = new URLSearchParams((await confirm(app, flow)).headers.location.split("?")[1]).get("code")
    jest.useFakeTimers({
      now: Date.now() + 2000,
      doNotFake: ["nextTick", "setImmediate", "queueMicrotask", "setTimeout", "setInterval"],
    })
    try {
      const late = await request(app).post("/auth/token").send({ code, code_verifier: flow.verifier })
      expect([late.status, late.body.error]).toEqual([400, "invalid_grant"])
    } finally {
      jest.useRealTimers()
    }
  })

  test("a missing or forged ctx is refused; the confirm POST needs the CSRF token", async () => {
    const { app } = await nativeApp()
    const forged = await request(app).get("/auth/native?ctx=abc")
    expect(forged.headers.location).toMatch(/error=NativeSignInError&code=invalid_context$/)
    const flow = await startAndSignIn(app)
    const ctx = /name="ctx" value="([^"]+)"/.exec(flow.page.text)![1]
    const noCsrf = await request(app)
      .post("/auth/native")
      .set("Cookie", cookieHeader(flow.jar))
      .type("form")
      .send({ ctx, action: "allow" })
    expect(noCsrf.status).toBe(302)
    expect(noCsrf.headers.location).toContain("error=MissingCSRF")
  })

  test("without native: /auth/native and POST /auth/token answer 400, and a start is the old 400", async () => {
    const app = express()
    app.use(
      "/auth",
      Gatehouse({ secret: SECRET, trustHost: true, logger: quiet, providers: [Credentials({ authorize: () => null })] })
        .handlers,
    )
    expect((await request(app).get("/auth/native?ctx=x")).status).toBe(400)
    expect((await request(app).post("/auth/token").send({ code: "x" })).status).toBe(400)
    const start = await request(app).get(
      `/auth/signin/credentials?callbackUrl=myapp://cb&code_challenge=${pkce().challenge}`,
    )
    expect(start.status).not.toBe(302)
  })

  test("construction refuses bad redirect URIs", () => {
    const make = (redirectUris: string[]) => () =>
      Gatehouse({ secret: SECRET, providers: [], native: { redirectUris } })
    expect(make([])).toThrow(InvalidConfig)
    expect(make(["http://example.com/cb"])).toThrow(/plain http/)
    expect(make(["myapp://cb#x"])).toThrow(/fragment/)
    expect(make(["javascript://cb"])).toThrow(/not private-use/)
    expect(make(["https://app.example/cb?x=1"])).toThrow(/query/)
  })
})

describe("tokens T2-7: an OpenID Provider as the first factor of a native start", () => {
  test("T2-7 start → the OP's authorize URL; after login the RP lands on /auth/native; allow → code; exchange works", async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push(server)
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/op`] })
    try {
      const app = express()
      app.use(
        "/auth",
        Gatehouse({
          secret: SECRET,
          trustHost: true,
          logger: quiet,
          session: { bearer: true },
          native: { redirectUris: ["myapp://cb"] },
          providers: [
            {
              id: "op",
              name: "Test OP",
              type: "oidc",
              issuer: op.issuer,
              clientId: op.clientId,
              clientSecret: op.clientSecret,
              allowInsecureRequests: true,
            } as never,
          ],
        }).handlers,
      )
      server.on("request", app)
      const jar = new Map<string, string>()
      const go = async (path: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers)
        headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
        const res = await fetch(new URL(path, origin), { ...init, headers, redirect: "manual" })
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(";")
          const eq = pair!.indexOf("=")
          const value = pair!.slice(eq + 1)
          if (value === "" || /max-age=0/i.test(line)) jar.delete(pair!.slice(0, eq))
          else jar.set(pair!.slice(0, eq), value)
        }
        return res
      }
      const { verifier, challenge } = pkce()
      const start = await go(
        `/auth/signin/op?${new URLSearchParams({ callbackUrl: "myapp://cb", code_challenge: challenge, state: "s7" })}`,
      )
      expect(start.status).toBe(302)
      const authorize = start.headers.get("location")!
      expect(authorize.startsWith(`${op.issuer}/auth?`)).toBe(true)
      const delivery = await driveAuthorization(authorize, `${origin}/auth/callback/`, { login: "carol" })
      const callback = await go(`${delivery.url.pathname}${delivery.url.search}`)
      expect(callback.status).toBe(302)
      const continuation = callback.headers.get("location")!
      expect(continuation).toMatch(new RegExp(`^${origin}/auth/native\\?ctx=`))
      const page = await (await go(continuation)).text()
      expect(page).toContain("Sign in to the app?")
      const ctx = /name="ctx" value="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, "&")
      const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page)![1]!
      const allowed = await go("/auth/native", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, ctx, action: "allow" }).toString(),
      })
      const location = allowed.headers.get("location")!
      expect(location).toMatch(/^myapp:\/\/cb\?code=[A-Za-z0-9_-]{43}&state=s7&iss=/)
      const code = new URLSearchParams(location.split("?")[1]).get("code")
      const exchange = await fetch(`${origin}/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code, code_verifier: verifier }),
      })
      expect(exchange.status).toBe(200)
      const { token } = (await exchange.json()) as { token: string }
      const session = await fetch(`${origin}/auth/session`, { headers: { authorization: `Bearer ${token}` } })
      expect(((await session.json()) as { user: { email: string } }).user.email).toBe("carol@example.test")
    } finally {
      await op.close()
    }
  })
})
