// A PostgreSQL database that stops answering, through Express and the core: a clear error and no session while it is
// gone, no half-written user or account, and the same app signing in again once it is back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import net from "node:net"
import type { AddressInfo } from "node:net"
import express from "express"
import { Pool, type PoolConfig } from "pg"
import request from "supertest"
import { ExpressAuth, requireAuth } from "../../lib"
import { PostgresAdapter, migrate } from "../../lib/storage/postgres/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { AuthError } from "../../lib/errors"
import Credentials from "../../lib/providers/credentials"
import type { OAuthConfig } from "../../lib/providers/types"
import { DATABASE_URL, POSTGRES, describeWithService, randomSuffix } from "../adapters/services"
import { cookieHeader, cookieJar } from "../express/apps"
import { driveAuthorization, startOidcProvider, type StartedOidcProvider } from "../fixtures/oauth/oidc-provider"

const SECRET = "database-fault-secret-0123456789abcdef0123456789"
const SESSION_COOKIE = "authjs.session-token"

/**
 * A TCP proxy in front of PostgreSQL. `cut()` drops every connection and closes the port (the database is gone),
 * `freeze()` keeps connections open but forwards nothing (the database stops answering), `tripOn(text)` cuts at the
 * moment a client sends a message containing `text` (before it reaches the server), `restore()` brings it back.
 */
class FaultyProxy {
  private server: net.Server | undefined
  private readonly sockets = new Set<net.Socket>()
  private frozen = false
  private tripwire: string | undefined
  port = 0

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.frozen = false
    this.server = net.createServer((client) => {
      this.track(client)
      if (this.frozen) return
      const upstream = net.connect(this.target)
      this.track(upstream)
      client.on("data", (chunk: Buffer) => {
        if (this.frozen) return
        if (this.tripwire && chunk.includes(this.tripwire)) {
          this.tripwire = undefined
          void this.cut()
          return
        }
        upstream.write(chunk)
      })
      upstream.on("data", (chunk: Buffer) => {
        if (!this.frozen) client.write(chunk)
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve))
    this.port = (this.server.address() as AddressInfo).port
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket)
    socket.on("close", () => this.sockets.delete(socket))
    socket.on("error", () => undefined)
  }

  tripOn(text: string): void {
    this.tripwire = text
  }

  freeze(): void {
    this.frozen = true
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    const server = this.server
    this.server = undefined
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  async restore(): Promise<void> {
    await this.cut()
    await this.start()
  }
}

async function deadPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const setCookies = (res: request.Response): string[] => {
  const raw = res.headers["set-cookie"] as string[] | string | undefined
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
}
const sessionLines = (res: request.Response) => setCookies(res).filter((l) => l.startsWith(`${SESSION_COOKIE}=`))
const typesOf = (errors: Error[]) => errors.map((e) => (e as AuthError).type ?? e.name)

describeWithService(POSTGRES, "PostgreSQL going away under Express + database sessions", () => {
  const schema = `gatehouse_e2e_fault_${randomSuffix()}`
  const admin = new Pool({ connectionString: DATABASE_URL, max: 2 })
  const pg = new URL(DATABASE_URL)
  const proxy = new FaultyProxy({ host: pg.hostname, port: Number(pg.port || 5432) })
  const pools: Pool[] = []
  let op: StartedOidcProvider
  let server: Server
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
  let origin = ""

  beforeAll(async () => {
    await migrate(admin, { schema })
    await proxy.start()
    server = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/op`] })
  })
  afterEach(async () => {
    await proxy.restore()
  })
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end().catch(() => undefined)))
    await op.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await proxy.cut()
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  })

  /** A pool through the proxy (or at `port`); like any app's pool, it listens for idle-client errors. */
  function appPool(extra: PoolConfig = {}): Pool {
    const pool = new Pool({
      host: "127.0.0.1",
      port: proxy.port,
      user: pg.username || "postgres",
      database: pg.pathname.slice(1) || "test",
      max: 4,
      connectionTimeoutMillis: 2000,
      ...extra,
    })
    pool.on("error", () => undefined)
    pools.push(pool)
    return pool
  }

  /** The app: ExpressAuth with the PostgreSQL adapter (database sessions), Credentials, one OIDC provider, `/me`. */
  function startApp(pool: Pool) {
    const errors: Error[] = []
    const oidc: OAuthConfig = {
      id: "op",
      name: "OP",
      type: "oidc",
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      allowInsecureRequests: true,
      checks: ["pkce", "state", "nonce"],
    }
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter: PostgresAdapter(pool, { schema }),
      logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: (c) =>
            c.password === "pw" && typeof c.username === "string"
              ? { id: `user-${c.username}`, name: c.username, email: `${c.username}@example.test` }
              : null,
        }),
        oidc,
      ],
    }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/me", requireAuth(config), (_req, res) => {
      res.json(res.locals.session)
    })
    // Anything that escapes to Express would be a 500 here; the tests assert it never happens.
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      errors.push(error)
      res.status(500).json({ escaped: error.message })
    })
    handler = app
    return { errors }
  }

  async function signIn(username: string) {
    const csrf = await request(server).get("/auth/csrf")
    const jar = cookieJar({}, csrf.headers["set-cookie"])
    const response = await request(server)
      .post("/auth/callback/credentials")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, username, password: "pw", callbackUrl: "/dashboard" })
    return { response, jar: cookieJar(jar, response.headers["set-cookie"]) }
  }

  async function oauthSignIn(login: string) {
    const csrf = await request(server).get("/auth/csrf")
    let jar = cookieJar({}, csrf.headers["set-cookie"])
    const start = await request(server)
      .post("/auth/signin/op")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard" })
    expect(start.status).toBe(302)
    jar = cookieJar(jar, start.headers["set-cookie"])
    const delivery = await driveAuthorization(start.headers.location!, `${origin}/auth/callback/`, { login })
    const response = await request(server)
      .get(`${delivery.url.pathname}?${delivery.params}`)
      .set("Cookie", cookieHeader(jar))
    return { response, jar: cookieJar(jar, response.headers["set-cookie"]) }
  }

  const me = (jar: Record<string, string>, accept = "application/json") =>
    request(server).get("/me").set("Accept", accept).set("Cookie", cookieHeader(jar))
  const sessionOf = (jar: Record<string, string>) =>
    request(server).get("/auth/session").set("Cookie", cookieHeader(jar))

  const count = async (sql: string, values: unknown[]) =>
    (await admin.query(sql.replaceAll("$schema", `"${schema}"`), values)).rows[0].n as number
  const usersWithEmail = (email: string) =>
    count("SELECT count(*)::int AS n FROM $schema.users WHERE lower(email) = lower($1)", [email])
  const accountsOf = (provider: string, id: string) =>
    count("SELECT count(*)::int AS n FROM $schema.accounts WHERE provider = $1 AND provider_account_id = $2", [
      provider,
      id,
    ])

  /** What a sign-in looks like while the database is unreachable: the Configuration error page, no session. */
  function expectFailedClosed(response: request.Response, errors: Error[]): void {
    expect(response.status).toBe(302)
    expect(response.headers.location).toBe(`${origin}/auth/error?error=Configuration`)
    expect(sessionLines(response)).toEqual([])
    expect(typesOf(errors)).toContain("AdapterError")
    expect(errors.some((e) => (e as { status?: number }).status === 500 || "escaped" in e)).toBe(false)
  }

  it("credentials sign-in while the database is gone: error=Configuration, AdapterError, no cookie; recovers", async () => {
    const { errors } = startApp(appPool())
    const name = `cara-${randomSuffix()}`
    await proxy.cut()
    const failed = await signIn(name)
    expectFailedClosed(failed.response, errors)
    expect(failed.jar[SESSION_COOKIE]).toBeUndefined()
    expect(await usersWithEmail(`${name}@example.test`)).toBe(0)

    await proxy.restore()
    errors.length = 0
    const ok = await signIn(name)
    expect(errors).toEqual([])
    expect(ok.response.headers.location).toBe(`${origin}/dashboard`)
    expect(ok.jar[SESSION_COOKIE]).toBeTruthy()
    expect((await me(ok.jar)).status).toBe(200)
  })

  it("a session check while the database is gone: /auth/session 503, requireAuth 401, cookie kept; recovers", async () => {
    const { errors } = startApp(appPool())
    const { jar } = await signIn(`dina-${randomSuffix()}`)
    expect((await me(jar)).status).toBe(200)

    await proxy.cut()
    const session = await sessionOf(jar)
    expect(session.status).toBe(503)
    expect(session.body).toEqual({ error: "ServiceUnavailable" })
    expect(session.headers["retry-after"]).toBe("5")
    // The database failed, not the cookie: it is neither re-issued nor cleared.
    expect(sessionLines(session)).toEqual([])
    const api = await me(jar)
    expect(api.status).toBe(401)
    expect(api.body).toEqual({ error: "Unauthorized" })
    expect(sessionLines(api)).toEqual([])
    const browser = await me(jar, "text/html")
    expect(browser.status).toBe(302)
    expect(browser.headers.location).toMatch(/^\/auth\/signin\?callbackUrl=/)
    // The adapter wrapper logs the failure once; the session read does not log it again as SessionTokenError.
    expect(new Set(typesOf(errors))).toEqual(new Set(["AdapterError"]))

    await proxy.restore()
    expect((await me(jar)).status).toBe(200)
    expect((await sessionOf(jar)).body?.user?.email).toMatch(/^dina-/)
  })

  it("sign-out while the database is gone still clears the cookie and redirects (SignOutError logged)", async () => {
    const { errors } = startApp(appPool())
    const { jar } = await signIn(`ezra-${randomSuffix()}`)
    await proxy.cut()
    const csrf = await request(server).get("/auth/csrf").set("Cookie", cookieHeader(jar))
    const out = await request(server)
      .post("/auth/signout")
      .set("Cookie", cookieHeader(cookieJar(jar, csrf.headers["set-cookie"])))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, callbackUrl: "/bye" })
    expect(out.status).toBe(302)
    expect(out.headers.location).toBe(`${origin}/bye`)
    expect(sessionLines(out)).toEqual([`${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`])
    expect(typesOf(errors)).toContain("SignOutError")
  })

  // A dead port is an outage (connection refused: 503 for the JSON route, worth a retry); an ended pool is the app's
  // own mistake (no retry helps), so the session reads as absent.
  describe.each([
    [
      "an ended pool",
      async () => {
        const pool = appPool()
        await pool.end()
        return pool
      },
      { status: 200, body: null },
    ],
    [
      "a dead port",
      async () => appPool({ port: await deadPort() }),
      { status: 503, body: { error: "ServiceUnavailable" } },
    ],
  ] as const)("with %s", (_kind, brokenPool, sessionAnswer) => {
    it("sign-in fails closed; /auth/session answers 503 or null; requireAuth answers 401; the process lives on", async () => {
      const good = appPool()
      startApp(good)
      const { jar } = await signIn(`finn-${randomSuffix()}`)

      const { errors } = startApp(await brokenPool())
      expectFailedClosed((await signIn(`gail-${randomSuffix()}`)).response, errors)
      const session = await sessionOf(jar)
      expect({ status: session.status, body: JSON.parse(session.text) }).toEqual(sessionAnswer)
      expect((await me(jar)).status).toBe(401)
      expect(typesOf(errors)).not.toContain(undefined)

      // The same cookie is fine with a working pool: nothing was cleared or deleted.
      startApp(good)
      expect((await me(jar)).status).toBe(200)
    })
  })

  it("a database that stops answering (no reset) fails closed once the pool's query_timeout passes", async () => {
    const { errors } = startApp(appPool({ query_timeout: 300, connectionTimeoutMillis: 300 }))
    const { jar } = await signIn(`hana-${randomSuffix()}`)
    proxy.freeze()
    const session = await sessionOf(jar)
    // The read takes the pool's idle connection and its query times out: "no session". Nothing the sign-in started
    // holds that connection (the audit trail's retention pass runs on a timer, never within a request's answer), so the
    // read never needs a new connection, whose connect timeout would answer 503.
    expect({ status: session.status, text: session.text }).toEqual({ status: 200, text: "null" })
    expect((await me(jar)).status).toBe(401)
    expectFailedClosed((await signIn(`ivo-${randomSuffix()}`)).response, errors)

    await proxy.restore()
    expect((await me(jar)).status).toBe(200)
  })

  describe("an OAuth first sign-in cut between createUser and linkAccount", () => {
    // The tripwire fires on the account INSERT, whichever connection (pool or transaction client) sends it.
    const ACCOUNT_INSERT = ".accounts (user_id"

    it("ends in error=Configuration with AdapterError logged, no session cookie and no account row", async () => {
      const { errors } = startApp(appPool())
      const login = `juno-${randomSuffix()}`
      proxy.tripOn(ACCOUNT_INSERT)
      const { response } = await oauthSignIn(login)
      expectFailedClosed(response, errors)
      expect(await accountsOf("op", login)).toBe(0)
      expect(
        await count(
          "SELECT count(*)::int AS n FROM $schema.sessions s JOIN $schema.users u ON u.id = s.user_id WHERE lower(u.email) = $1",
          [`${login}@example.test`],
        ),
      ).toBe(0)
    })

    // Regression: createUser and linkAccount used to be two separate writes, so a cut between them left a user with no
    // account whose email then blocked the person for good (OAuthAccountNotLinked). They now run in one transaction.
    it("leaves no user behind, so the same person signs in once the database is back", async () => {
      const { errors } = startApp(appPool())
      const login = `kai-${randomSuffix()}`
      proxy.tripOn(ACCOUNT_INSERT)
      const { response } = await oauthSignIn(login)
      expectFailedClosed(response, errors)
      expect(await usersWithEmail(`${login}@example.test`)).toBe(0)

      await proxy.restore()
      errors.length = 0
      const again = await oauthSignIn(login)
      expect(errors).toEqual([])
      expect(again.response.headers.location).toBe(`${origin}/dashboard`)
      expect(await usersWithEmail(`${login}@example.test`)).toBe(1)
      expect(await accountsOf("op", login)).toBe(1)
    })
  })
})
