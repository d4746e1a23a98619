/**
 * The demo app: Express 5 with database sessions in a local SQLite file; credentials sign-in, OpenID Connect sign-in
 * with a local identity provider, and email sign-in through a development mailbox; a home page, a protected page and
 * a protected JSON API. Everything goes through one `Gatehouse(config)`: its `handlers` serve /auth, `auth` reads the
 * session, and the home page signs in and out server-side with `signIn`/`signOut`.
 */
import { timingSafeEqual } from "node:crypto"
import { mkdirSync } from "node:fs"
import path from "node:path"
import express from "express"
import { CredentialsSignin, Gatehouse, MissingCSRF, type AuthConfig } from "../../lib"
import { SQLiteAdapter } from "../../lib/adapters/sqlite"
import Credentials from "../../lib/providers/credentials"
import Passkey from "../../lib/providers/passkey"
import { passkeyClientScript } from "./passkey-client"
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
    // Passkeys: sign up or sign in on the built-in page; signed in, add one from the home page. Without AUTH_URL the
    // relying party is the origin the demo is served under (http://localhost:3000 is a secure context).
    Passkey({ relyingParty: { name: "Gatehouse demo" } }),
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
  const { handlers, auth, signIn, signOut, requireAuth } = Gatehouse(config)
  const app = express()
  app.use(express.urlencoded({ extended: false }))
  app.use("/auth", handlers)
  app.use("/dev/mailbox", mailbox.router)
  // The passkey client module (gatehouse-auth/client/webauthn), as an app would serve it from its bundle.
  app.get("/client/webauthn.js", (_req, res) => void res.type("text/javascript").send(passkeyClientScript()))

  // The home page's own form signs in server-side (POST /login below); the built-in page offers every provider.
  const loginForm = `<form method="post" action="/login">
<label>Username <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button>Sign in here</button></form>`

  app.get(
    "/",
    auth((req, res) => {
      const session = req.auth
      const body = session
        ? `<p>Signed in as <strong>${escape(session.user?.name ?? session.user?.email)}</strong>${
            session.user?.name && session.user.email ? ` (${escape(session.user.email)})` : ""
          }.</p>
         <p><button id="add-passkey" type="button">Add a passkey</button> <span id="passkey-status"></span></p>
         <script type="module">
           document.getElementById("add-passkey").addEventListener("click", async () => {
             const { registerPasskey } = await import("/client/webauthn.js")
             const result = await registerPasskey({ redirect: false })
             document.getElementById("passkey-status").textContent = result.ok
               ? "Passkey added: sign out and sign back in with it."
               : "No passkey added (" + result.error + ")."
           })
         </script>
         <p><a href="/auth/signout">Sign out</a> on the built-in page, or here:</p>
         <form method="post" action="/logout"><button>Sign out here</button></form>`
        : `<p>You are not signed in.</p><p><a href="/auth/signin">Sign in</a> on the built-in page, or here:</p>${loginForm}`
      res.type("html").send(layout("Gatehouse demo", body))
    }),
  )

  // Server-side sign-in: the browser posts to the app, the app signs in (the origin guard checks it is same-site).
  app.post("/login", (req, res, next) => {
    const { username, password } = req.body as Record<string, string | undefined>
    signIn(req, res, "credentials", { username, password, redirectTo: "/protected" }).catch((error: unknown) => {
      if (!(error instanceof CredentialsSignin)) return next(error)
      res
        .status(401)
        .type("html")
        .send(layout("Sign in", `<p>Wrong username or password.</p>${loginForm}`))
    })
  })

  app.post("/logout", (req, res, next) => {
    signOut(req, res, { redirectTo: "/" }).catch(next)
  })

  app.get("/protected", requireAuth(), (_req, res) => {
    const user = res.locals.session?.user
    res
      .type("html")
      .send(layout("Protected page", `<p>Only signed-in users see this, ${escape(user?.name ?? user?.email)}.</p>`))
  })

  app.get("/api/me", requireAuth(), (_req, res) => {
    res.json(res.locals.session)
  })

  // signIn/signOut throw MissingCSRF for a post from another site: nothing was written, answer 403.
  app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(error instanceof MissingCSRF)) return next(error)
    res.status(403).type("text/plain").send("Forbidden: cross-site request")
  })

  return app
}

export const app = createApp()
