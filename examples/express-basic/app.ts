/**
 * The demo app: Express 5 with database sessions in a local SQLite file; credentials sign-in, OpenID Connect sign-in
 * with a local identity provider, and email sign-in through a development mailbox; a home page, a protected page and
 * a protected JSON API.
 */
import { timingSafeEqual } from "node:crypto"
import { mkdirSync } from "node:fs"
import path from "node:path"
import express from "express"
import { ExpressAuth, getSession, requireAuth, type AuthConfig } from "../../lib"
import { SQLiteAdapter } from "../../lib/adapters/sqlite"
import Credentials from "../../lib/providers/credentials"
import { localIdpProvider } from "./local-idp"
import { createDevMailbox } from "./mailbox"

/** Where the demo keeps users and sessions: `$DEMO_DB`, else `.demo-data/gatehouse.sqlite` (`:memory:` for none). */
export function demoDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEMO_DB ?? path.join(process.cwd(), ".demo-data", "gatehouse.sqlite")
}

function openDatabase(file: string) {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true })
  return SQLiteAdapter(file)
}

/** Sign-in emails of the demo land here (`/dev/mailbox`) instead of being sent. */
export const mailbox = createDevMailbox()

/** The demo login, printed when the server starts. */
export const demoLogin = { username: "demo", password: "gatehouse" } as const

function same(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export const authConfig: AuthConfig = {
  // Database sessions: the cookie holds only a random token; the session row lives in SQLite.
  adapter: openDatabase(demoDatabasePath()),
  providers: [
    Credentials({
      name: "Demo account",
      credentials: {
        username: { label: "Username", autocomplete: "username" },
        password: { label: "Password", type: "password", autocomplete: "current-password" },
      },
      authorize: (credentials) => {
        const ok = same(credentials.username, demoLogin.username) && same(credentials.password, demoLogin.password)
        return ok ? { id: "demo-user", name: "Demo User", email: "demo@example.test" } : null
      },
    }),
    // "Sign in with the local identity provider": an OpenID Provider that server.ts starts in this process.
    localIdpProvider(),
    mailbox.provider,
  ],
}

const escape = (value: unknown) => String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}nav a{margin-right:1rem}</style>
</head><body><nav><a href="/">Home</a><a href="/protected">Protected page</a><a href="/api/me">API: /api/me</a>
<a href="/dev/mailbox">Dev mailbox</a></nav>
<h1>${escape(title)}</h1>${body}</body></html>`
}

/**
 * Builds the demo app.
 *
 * @example
 * ```ts
 * createApp().listen(3000)
 * ```
 */
export function createApp(config: AuthConfig = authConfig): express.Express {
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.use("/dev/mailbox", mailbox.router)

  app.get("/", async (req, res) => {
    const session = await getSession(req, config)
    const body = session
      ? `<p>Signed in as <strong>${escape(session.user?.name)}</strong> (${escape(session.user?.email)}).</p>
         <p><a href="/auth/signout">Sign out</a></p>`
      : `<p>You are not signed in.</p><p><a href="/auth/signin">Sign in</a></p>`
    res.type("html").send(layout("Gatehouse demo", body))
  })

  app.get("/protected", requireAuth(config), (_req, res) => {
    const user = res.locals.session?.user
    res.type("html").send(layout("Protected page", `<p>Only signed-in users see this, ${escape(user?.name)}.</p>`))
  })

  app.get("/api/me", requireAuth(config), (_req, res) => {
    res.json(res.locals.session)
  })

  return app
}

export const app = createApp()
