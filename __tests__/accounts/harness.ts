// A small Express app for the accounts specification's acceptance tests (accounts.md §10): memory adapter by default,
// JWT sessions, credentials over users stored in the adapter, an audit sink and a mail sink that record, /auth.
import express from "express"
import type { Express } from "express"
import request from "supertest"
import { Gatehouse, type GatehouseInstance } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter, AdapterUser } from "../../lib/storage/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import type { AuditEvent } from "../../lib/core/kernel/audit"
import Credentials from "../../lib/providers/credentials"
import { SECRET, cookieHeader, cookieJar } from "../express/apps"

export const PASSWORD = "correct horse battery staple"

export interface Harness {
  app: Express
  gatehouse: GatehouseInstance
  adapter: Required<Adapter>
  events: AuditEvent[]
  warnings: string[]
  addUser(user: Partial<AdapterUser> & { id: string }): Promise<AdapterUser>
  signIn(userId: string, options?: { userAgent?: string }): Promise<Record<string, string>>
}

/** The harness's credentials provider: a stored user's id as the username, and {@link PASSWORD}. */
export function harnessCredentials(adapter: Required<Adapter>) {
  return Credentials({
    credentials: { username: {}, password: {} },
    authorize: async (c) =>
      c.password === PASSWORD && typeof c.username === "string" ? await adapter.getUser(c.username) : null,
  })
}

/** The app: `overrides` go over the defaults (a new `audit` replaces the recording sink). */
export function harness(overrides: Partial<AuthConfig> = {}, adapter: Required<Adapter> = MemoryAdapter()): Harness {
  const events: AuditEvent[] = []
  const warnings: string[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: { error: () => undefined, warn: (code) => void warnings.push(code), debug: () => undefined },
    audit: { sink: (event) => void events.push(event) },
    providers: [harnessCredentials(adapter)],
    ...overrides,
  }
  const gatehouse = Gatehouse(config)
  const app = express()
  app.set("trust proxy", true)
  app.use(express.json())
  app.use("/auth", gatehouse.handlers)
  return {
    app,
    gatehouse,
    adapter,
    events,
    warnings,
    addUser: async (user) => adapter.createUser({ email: null, emailVerified: null, ...user }),
    async signIn(userId, options = {}) {
      const csrf = await request(app).get("/auth/csrf")
      const jar = cookieJar({}, csrf.headers["set-cookie"])
      const res = await request(app)
        .post("/auth/callback/credentials")
        .set("Cookie", cookieHeader(jar))
        .set("User-Agent", options.userAgent ?? "Harness/1.0")
        .type("form")
        .send({ csrfToken: csrf.body.csrfToken, username: userId, password: PASSWORD })
      if (res.status !== 302 || String(res.headers.location).includes("error=")) {
        throw new Error(`sign-in failed: ${res.status} ${res.headers.location}`)
      }
      return cookieJar(jar, res.headers["set-cookie"])
    },
  }
}

/** Resolves once the sinks called in the background have run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export { cookieHeader, cookieJar }

/** POSTs JSON to an auth route with the double-submit CSRF token (unless `csrf: false`); answers the response. */
export async function postJson(
  app: Express,
  jar: Record<string, string>,
  path: string,
  body: Record<string, unknown>,
  options: { csrf?: false } = {},
) {
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const withCsrf = cookieJar(jar, csrf.headers["set-cookie"])
  return request(app)
    .post(path)
    .set("Cookie", cookieHeader(withCsrf))
    .set("Accept", "application/json")
    .send(options.csrf === false ? body : { ...body, csrfToken: csrf.body.csrfToken })
}

/** Opens a mail link (its GET page) and submits the page's form, in the browser of `jar`; answers the POST. */
export async function followMailLink(app: Express, jar: Record<string, string>, url: string) {
  const link = new URL(url)
  const page = await request(app).get(`${link.pathname}${link.search}`).set("Cookie", cookieHeader(jar))
  if (page.status !== 200) throw new Error(`mail link page: ${page.status}`)
  const html = String(page.text)
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? ""
  const withCsrf = cookieJar(jar, page.headers["set-cookie"])
  const res = await request(app)
    .post(link.pathname)
    .set("Cookie", cookieHeader(withCsrf))
    .type("form")
    .send({ csrfToken: field("csrfToken"), token: field("token") })
  return { page, res, jar: cookieJar(withCsrf, res.headers["set-cookie"]) }
}
