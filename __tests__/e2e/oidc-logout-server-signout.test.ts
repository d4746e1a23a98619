// Server-side `signOut(..., { federated })` (next-wave C.1 RP-initiated item 3) in both initializers, Express
// (`gatehouse-auth`, on Express 4 and 5) and Fetch (`gatehouse-auth/web`), against a real oidc-provider, with JWT and
// database sessions: federated sign-out ends the local session and sends the browser to the OP's end-session endpoint;
// the OP ends its own session and returns the user to the destination sealed in `state`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import express5, { type ErrorRequestHandler } from "express"
import express4 from "express4"
import { decodeJwt } from "jose"
import { Gatehouse } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { AuthError, MissingCSRF } from "../../lib/errors"
import { sendWebResponse, toWebRequest } from "../../lib/express/convert"
import { Gatehouse as WebGatehouse } from "../../lib/web"
import type { SignOutOptions } from "../../lib/core/pipeline/server-calls"
import { driveAuthorization, startOidcProvider, testOidcProvider } from "../fixtures/oauth/oidc-provider"
import type { StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

const SECRET = "server-signout-secret-0123456789abcdef0123456789"
const SESSION = "authjs.session-token"

type Flavour = "Express 4" | "Express 5" | "web"
type Strategy = "jwt" | "database"

interface TestApp {
  name: string
  flavour: Flavour
  strategy: Strategy
  url: string
  server: Server
  adapter: ReturnType<typeof MemoryAdapter>
  /** What the server-side calls threw (the app answers 418). */
  errors: unknown[]
  signOutEvents: number
  handler?: (req: IncomingMessage, res: ServerResponse) => void
}

/** The app's sign-out routes: each calls the server-side `signOut` with these options. */
const routes: Record<string, SignOutOptions> = {
  "/logout": { redirectTo: "/bye" },
  "/logout-federated": { federated: true, redirectTo: "/bye" },
  "/logout-local": { federated: false, redirectTo: "/bye" },
  "/logout-url": { federated: true, redirect: false, redirectTo: "/bye" },
}

let op: StartedOidcProvider
const apps: TestApp[] = []
let endSessions = 0

function configFor(app: TestApp): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    events: { signOut: () => void (app.signOutEvents += 1) },
    providers: [testOidcProvider(op, "corp", { checks: ["pkce", "state", "nonce"], logout: { rpInitiated: true } })],
    ...(app.strategy === "database" ? { adapter: app.adapter, session: { strategy: "database" as const } } : {}),
  }
}

function expressHandler(app: TestApp): TestApp["handler"] {
  const express = (app.flavour === "Express 4" ? express4 : express5) as typeof express5
  const { handlers, signOut } = Gatehouse(configFor(app))
  const server = express()
  server.use(express.urlencoded({ extended: false }))
  server.use("/auth", handlers)
  for (const [path, options] of Object.entries(routes)) {
    server.post(path, (req, res, next) => {
      signOut(req, res, options)
        .then((url) => {
          if (options.redirect === false) res.json({ url })
        })
        .catch(next)
    })
  }
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    app.errors.push(error)
    res.status(418).json({ type: error instanceof AuthError ? error.type : "other" })
  }
  server.use(onError)
  return server
}

function webHandler(app: TestApp): TestApp["handler"] {
  const gh = WebGatehouse(configFor(app))
  return (req, res) => {
    void (async () => {
      const request = await toWebRequest(req)
      let response = await gh.handle(request)
      const options = routes[new URL(request.url).pathname]
      if (!response && options && request.method === "POST") {
        response = await gh.signOut(request, options).catch((error: unknown) => {
          app.errors.push(error)
          return Response.json({ type: error instanceof AuthError ? error.type : "other" }, { status: 418 })
        })
      }
      await sendWebResponse(response ?? new Response("Not found", { status: 404 }), res)
    })().catch(() => {
      res.statusCode = 500
      res.end()
    })
  }
}

beforeAll(async () => {
  // The apps listen first: the OP registers URLs on their origins.
  for (const flavour of ["Express 4", "Express 5", "web"] as const) {
    for (const strategy of ["jwt", "database"] as const) {
      const app: TestApp = {
        name: `${flavour}, ${strategy} sessions`,
        flavour,
        strategy,
        url: "",
        server: createServer((req, res) => app.handler?.(req, res)),
        adapter: MemoryAdapter(),
        errors: [],
        signOutEvents: 0,
      }
      await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve))
      app.url = `http://localhost:${(app.server.address() as AddressInfo).port}`
      apps.push(app)
    }
  }
  op = await startOidcProvider({
    clientId: "app",
    redirectUris: apps.map((a) => `${a.url}/auth/callback/corp`),
    clientMetadata: { post_logout_redirect_uris: apps.map((a) => `${a.url}/auth/signout-callback/corp`) },
    features: { rpInitiatedLogout: { enabled: true } },
  })
  op.provider.on("end_session.success", () => void (endSessions += 1))
  for (const app of apps) app.handler = app.flavour === "web" ? webHandler(app) : expressHandler(app)
})

afterAll(async () => {
  await op.close()
  for (const app of apps) {
    app.server.closeAllConnections()
    await new Promise<void>((resolve) => app.server.close(() => resolve()))
  }
})

/** A browser: cookies for the app and for the OP. */
class Browser {
  readonly cookies = new Map<string, string>()
  readonly opJar = new Map<string, string>()
  constructor(private readonly app: TestApp) {}

  async request(path: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}) {
    const headers = new Headers()
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    if (init.origin) headers.set("origin", init.origin)
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const url = path.startsWith("http") ? path : `${this.app.url}${path}`
    const response = await fetch(url, { method: init.method ?? "GET", headers, body, redirect: "manual" })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      const [name, value] = [pair!.slice(0, eq), pair!.slice(eq + 1)]
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  async signIn(login: string): Promise<void> {
    const csrf = (await (await this.request("/auth/csrf")).json()) as { csrfToken: string }
    const start = await this.request("/auth/signin/corp", {
      method: "POST",
      form: { csrfToken: csrf.csrfToken, callbackUrl: `${this.app.url}/dashboard` },
    })
    const delivery = await driveAuthorization(start.headers.get("location")!, `${this.app.url}/auth/callback/`, {
      login,
      jar: this.opJar,
    })
    const callback = await this.request(`${delivery.url.pathname}?${delivery.params}`)
    expect(callback.headers.get("location")).toBe(`${this.app.url}/dashboard`)
    expect(await this.session()).toMatchObject({ user: { name: `User ${login}` } })
  }

  async session(): Promise<unknown> {
    return (await this.request("/auth/session")).json()
  }

  /** Confirms the OP's end-session page; returns where the OP sends the browser next. */
  async confirmEndSession(endSessionUrl: string): Promise<string> {
    const cookie = () => [...this.opJar].map(([k, v]) => `${k}=${v}`).join("; ")
    const page = await fetch(endSessionUrl, { headers: { cookie: cookie() }, redirect: "manual" })
    expect(page.status).toBe(200)
    const html = await page.text()
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

async function sessionRows(app: TestApp, login: string): Promise<number> {
  const user = await app.adapter.getUserByAccount({ provider: "corp", providerAccountId: login })
  return user ? (await app.adapter.listSessionsByUserId(user.id)).length : 0
}

/** Checks the end-session URL the OP is sent to; returns its `state`. */
async function expectEndSessionUrl(app: TestApp, location: string, login: string): Promise<string> {
  expect(location.startsWith(`${op.issuer}/session/end?`)).toBe(true)
  const query = new URL(location).searchParams
  expect(query.get("client_id")).toBe("app")
  expect(query.get("post_logout_redirect_uri")).toBe(`${app.url}/auth/signout-callback/corp`)
  const hint = query.get("id_token_hint")!
  // The ID token of this sign-in: issued by the OP to this client for this user.
  expect(decodeJwt(hint)).toMatchObject({ iss: op.issuer, aud: "app", sub: login })
  if (app.strategy === "database") {
    expect(hint).toBe((await app.adapter.getAccount(login, "corp"))?.id_token)
  }
  const state = query.get("state")!
  expect(state.split(".")).toHaveLength(5)
  return state
}

describe.each(["Express 4", "Express 5", "web"] as const)("server-side signOut, %s", (flavour) => {
  describe.each(["jwt", "database"] as const)("%s sessions", (strategy) => {
    const app = (): TestApp => apps.find((a) => a.flavour === flavour && a.strategy === strategy)!
    let n = 0
    const login = () => `${flavour.replace(/\W/g, "").toLowerCase()}-${strategy}-${++n}`

    test.each(["/logout", "/logout-federated"])(
      "%s (federated by default, and federated: true) ends both sessions and returns to the destination",
      async (path) => {
        const a = app()
        const user = login()
        const browser = new Browser(a)
        await browser.signIn(user)
        if (a.strategy === "database") expect(await sessionRows(a, user)).toBe(1)
        const [events, ended] = [a.signOutEvents, endSessions]

        const response = await browser.request(path, { method: "POST", origin: a.url })
        expect(response.status).toBe(303)
        const location = response.headers.get("location")!
        await expectEndSessionUrl(a, location, user)
        expect(browser.cookies.has(SESSION)).toBe(false)
        expect(await browser.session()).toBeNull()
        if (a.strategy === "database") expect(await sessionRows(a, user)).toBe(0)
        expect(a.signOutEvents - events).toBe(1)

        const back = await browser.confirmEndSession(location)
        expect(back.startsWith(`${a.url}/auth/signout-callback/corp?`)).toBe(true)
        expect(endSessions - ended).toBe(1)
        const landing = await browser.request(back)
        expect(landing.status).toBe(302)
        expect(landing.headers.get("location")).toBe(`${a.url}/bye`)
        expect(a.errors).toEqual([])
      },
    )

    test("federated: false ends the local session only: 303 to the destination, the OP is not involved", async () => {
      const a = app()
      const user = login()
      const browser = new Browser(a)
      await browser.signIn(user)
      const ended = endSessions
      const response = await browser.request("/logout-local", { method: "POST", origin: a.url })
      expect(response.status).toBe(303)
      expect(response.headers.get("location")).toBe(`${a.url}/bye`)
      expect(browser.cookies.has(SESSION)).toBe(false)
      expect(await browser.session()).toBeNull()
      if (a.strategy === "database") expect(await sessionRows(a, user)).toBe(0)
      expect(endSessions).toBe(ended)
    })

    test("redirect: false returns the end-session URL and still clears the session", async () => {
      const a = app()
      const user = login()
      const browser = new Browser(a)
      await browser.signIn(user)
      const response = await browser.request("/logout-url", { method: "POST", origin: a.url })
      expect(response.status).toBe(200)
      const { url } = (await response.json()) as { url: string }
      await expectEndSessionUrl(a, url, user)
      expect(browser.cookies.has(SESSION)).toBe(false)
      expect(await browser.session()).toBeNull()
    })

    test("a cross-site POST throws MissingCSRF: nothing is signed out, no redirect to the OP", async () => {
      const a = app()
      const user = login()
      const browser = new Browser(a)
      await browser.signIn(user)
      const errors = a.errors.length
      const response = await browser.request("/logout-federated", { method: "POST", origin: "https://evil.example" })
      expect(response.status).toBe(418)
      expect(a.errors.slice(errors)).toEqual([expect.any(MissingCSRF)])
      a.errors.length = errors
      expect(response.headers.get("location")).toBeNull()
      expect(response.headers.getSetCookie()).toEqual([])
      expect(await browser.session()).toMatchObject({ user: { name: `User ${user}` } })
      if (a.strategy === "database") expect(await sessionRows(a, user)).toBe(1)
    })
  })
})
