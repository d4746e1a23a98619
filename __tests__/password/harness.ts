// The Password provider's acceptance harness (passwords.md section 14): an Express app at /auth on a real listening
// server, the memory adapter by default, hooks that capture their parameters, JWT sessions, rate limiting off, and a
// cookie-keeping browser.
import type { Server } from "node:http"
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib/express"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Password from "../../lib/providers/password"
import type { PasswordOptions } from "../../lib/providers/password"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { cookieHeader, cookieJar } from "../express/apps"

export const SECRET = "password-test-secret-0123456789abcdef0123"
export const SESSION_COOKIE = "authjs.session-token"

/** Every captured hook call, by hook. */
export interface Mailbox {
  verify: Array<Record<string, any>>
  reset: Array<Record<string, any>>
  exists: Array<Record<string, any>>
  changed: Array<Record<string, any>>
}

export interface PasswordApp {
  server: Server
  mail: Mailbox
  events: Record<string, jest.Mock>
  adapter: Required<Adapter>
  instance: ReturnType<typeof Gatehouse>
  /** A new browser on this app. */
  browser(): Browser
  /** Waits until `mail[kind]` has at least `count` entries (hooks may run just after the answer). */
  waitForMail(kind: keyof Mailbox, count: number): Promise<void>
  close(): Promise<void>
}

export interface AppOptions {
  password?: PasswordOptions
  config?: Partial<AuthConfig>
  adapter?: Required<Adapter>
  /** Providers next to the Password provider (a credentials provider standing in for OAuth, say). */
  extraProviders?: AuthConfig["providers"]
}

/** Builds and starts the app. */
export async function passwordApp(options: AppOptions = {}): Promise<PasswordApp> {
  const mail: Mailbox = { verify: [], reset: [], exists: [], changed: [] }
  const events = {
    createUser: jest.fn(),
    signIn: jest.fn(),
    signOut: jest.fn(),
    emailVerified: jest.fn(),
    passwordReset: jest.fn(),
    passwordChanged: jest.fn(),
  }
  const adapter = options.adapter ?? MemoryAdapter()
  const instance = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    events,
    rateLimit: { enabled: false },
    providers: [
      Password({
        sendVerificationRequest: (p) => void mail.verify.push(p),
        sendPasswordReset: (p) => void mail.reset.push(p),
        sendAccountExists: (p) => void mail.exists.push(p),
        sendPasswordChanged: (p) => void mail.changed.push(p),
        requireEmailVerification: true,
        scrypt: { ln: 14, r: 8, p: 1 },
        ...options.password,
      }),
      ...(options.extraProviders ?? []),
    ],
    ...options.config,
  } as AuthConfig)
  const app = express()
  app.use(express.urlencoded({ extended: false }))
  app.use("/auth", instance.handlers)
  app.get("/me", async (req, res) => {
    res.json(await instance.auth(req, res))
  })
  // Same-origin POST routes calling the server functions (P18).
  const serverFunction =
    (run: (req: express.Request, res: express.Response) => Promise<unknown>) =>
    async (req: express.Request, res: express.Response) => {
      try {
        res.json(await run(req, res))
      } catch (error) {
        const e = error as { type?: string; code?: string; status?: number }
        res.status(e.status ?? 500).json({ thrown: e.type, code: e.code })
      }
    }
  app.post(
    "/fn/signup",
    serverFunction((req, res) => instance.signUp(req, res, { email: req.body.email, password: req.body.password })),
  )
  app.post(
    "/fn/forgot",
    serverFunction((req, res) => instance.requestPasswordReset(req, res, { email: req.body.email })),
  )
  app.post(
    "/fn/reset",
    serverFunction((req, res) =>
      instance.resetPassword(req, res, { token: req.body.token, email: req.body.email, password: req.body.password }),
    ),
  )
  app.post(
    "/fn/change",
    serverFunction((req, res) =>
      instance.changePassword(req, res, { currentPassword: req.body.current, newPassword: req.body.next }),
    ),
  )
  app.post(
    "/fn/set",
    serverFunction((req, res) => instance.setPassword(req, res, { newPassword: req.body.next })),
  )
  app.post(
    "/fn/resend",
    serverFunction((req, res) => instance.sendVerificationEmail(req, res, { email: req.body.email })),
  )
  app.post(
    "/fn/signin",
    serverFunction(async (req, res) => {
      const url = await instance.signIn(req, res, "password", {
        email: req.body.email,
        password: req.body.password,
        redirect: false,
      })
      return { url }
    }),
  )
  const server = app.listen(0, "127.0.0.1")
  await new Promise((resolve) => server.once("listening", resolve))
  return {
    server,
    mail,
    events,
    adapter,
    instance,
    browser: () => new Browser(server),
    async waitForMail(kind, count) {
      for (let i = 0; i < 500 && mail[kind].length < count; i++) await new Promise((r) => setTimeout(r, 5))
      if (mail[kind].length < count) throw new Error(`expected ${count} ${kind} mail(s), got ${mail[kind].length}`)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // A browser keeps its connections open: they would hold the close for minutes.
        server.closeAllConnections()
      }),
  }
}

/** A browser: keeps cookies, fetches a CSRF token, posts forms or JSON. */
export class Browser {
  jar: Record<string, string> = {}
  constructor(readonly server: Server) {}

  get origin(): string {
    const address = this.server.address() as { port: number }
    return `http://127.0.0.1:${address.port}`
  }

  keep(response: request.Response): request.Response {
    this.jar = cookieJar(this.jar, response.headers["set-cookie"])
    return response
  }

  async csrf(): Promise<string> {
    const response = this.keep(await request(this.server).get("/auth/csrf").set("Cookie", cookieHeader(this.jar)))
    return response.body.csrfToken as string
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<request.Response> {
    return this.keep(await request(this.server).get(path).set(headers).set("Cookie", cookieHeader(this.jar)))
  }

  /** POSTs a form with a fresh CSRF token (unless `csrfToken` is given, even `undefined`). */
  async form(path: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
    const body = "csrfToken" in fields ? fields : { ...fields, csrfToken: await this.csrf() }
    const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Record<string, string>
    return this.keep(
      await request(this.server).post(path).set(headers).set("Cookie", cookieHeader(this.jar)).type("form").send(clean),
    )
  }

  /** POSTs JSON with a fresh CSRF token (unless `csrfToken` is given). */
  async json(path: string, fields: Record<string, unknown>, headers: Record<string, string> = {}) {
    const body = "csrfToken" in fields ? fields : { ...fields, csrfToken: await this.csrf() }
    return this.keep(
      await request(this.server)
        .post(path)
        .set(headers)
        .set("Cookie", cookieHeader(this.jar))
        .set("Content-Type", "application/json")
        .send(JSON.stringify(body)),
    )
  }

  /** The session as the app sees it. */
  async session(): Promise<{ user?: { email?: string } } | null> {
    return (await this.get("/me")).body
  }

  async signIn(email: string, password: string, headers: Record<string, string> = {}) {
    return this.form("/auth/callback/password", { email, password }, headers)
  }
}

/** Creates a user with a password directly (signed up and verified), through the app's own hasher. */
export async function seedUser(
  app: PasswordApp,
  email: string,
  password: string,
  options: { verified?: boolean } = {},
): Promise<string> {
  const browser = app.browser()
  const before = app.mail.verify.length
  const signUp = await browser.form("/auth/signup", { email, password })
  if (signUp.status !== 302) throw new Error(`sign-up failed: ${signUp.status}`)
  const user = await app.adapter.getUserByEmail(email)
  if (!user) throw new Error("no user")
  if (options.verified !== false) {
    await app.waitForMail("verify", before + 1)
    await app.adapter.updateUser({ id: user.id, emailVerified: new Date() })
  }
  return user.id
}

/** The query of a mailed link. */
export const linkParams = (url: string) => new URL(url).searchParams
