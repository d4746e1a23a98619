/**
 * The demo app: Express 5 with database sessions in a local SQLite file; credentials sign-in, OpenID Connect sign-in
 * with a local identity provider (and sign-out there too), and email sign-in through a development mailbox; a home
 * page, a "Your sessions" page, a protected page and a protected JSON API. Everything goes through one
 * `Gatehouse(config)`: its `handlers` serve /auth, `auth` reads the session, the home page signs in and out
 * server-side with `signIn`/`signOut`, and the sessions page lists and ends sessions with `listSessions`,
 * `revokeSession` and `revokeOtherSessions`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { mkdirSync } from "node:fs"
import path from "node:path"
import express from "express"
import { CredentialsSignin, Gatehouse, MissingCSRF, type AuthConfig, type Session } from "../../lib"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import Credentials from "../../lib/providers/credentials"
import Passkey from "../../lib/providers/passkey"
import Password from "../../lib/providers/password"
import { lifetimeInWords } from "../../lib/core/kernel/pages/verify-request"
import type { SessionInfo } from "../../lib/core/session/manage"
import { passkeyClientScript } from "./passkey-client"
import { LOCAL_IDP_ID, localIdpProvider } from "./local-idp"
import { createDevMailbox } from "./mailbox"
import { escape, newNonce, renderPage, sendPage, timeElement } from "./pages"
import { createSignInMethods, signInMethodLabel } from "./sign-in-methods"
import { mountTwoFactorPage } from "./two-factor-page"
import { PROFILE_PATH, mountProfilePage } from "./profile-page"

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

/** How each session was signed in to, for the home and sessions pages (in memory: a restart forgets it). */
export const signInMethods = createSignInMethods()

/** The demo login, printed when the server starts. */
export const demoLogin = { username: "demo", password: "gatehouse" } as const

function same(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The demo's adapter: SQLite at `file`, watched by the mailbox (a consumed link shows "used") and by the sign-in
 * methods (how each session began). The wrappers only watch; every call goes to the SQLite adapter.
 *
 * @example
 * ```ts
 * createApp({ ...authConfig, adapter: createDemoAdapter(":memory:") })
 * ```
 */
export function createDemoAdapter(file: string = demoDatabasePath()) {
  return signInMethods.watch(mailbox.watch(openDatabase(file)))
}

export const authConfig: AuthConfig = {
  // Database sessions: the cookie holds only a random token; the session row lives in SQLite.
  adapter: createDemoAdapter(),
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
    // Email and password accounts: "Create an account" and "Forgot password?" on the sign-in page; the confirmation
    // and reset links land in the dev mailbox.
    Password({ ...mailbox.passwordHooks, requireEmailVerification: true }),
    // Passkeys: sign up or sign in on the built-in page; signed in, add one from the home page. Without AUTH_URL the
    // relying party is the origin the demo is served under (http://localhost:3000 is a secure context).
    Passkey({ relyingParty: { name: "Gatehouse demo" } }),
  ],
  events: { signIn: (message) => signInMethods.signedIn(message) },
  // After an email sign-in request: the demo's own "check your email" page, which points to the dev mailbox.
  pages: { verifyRequest: "/check-email" },
  // Two-factor sign-in: users turn on an authenticator app on /account/two-factor; every sign-in then asks for a code.
  twoFactor: { issuer: "Gatehouse demo" },
  // Account self-service: /account/profile lists the sign-in methods and recent activity (the audit trail is kept in
  // the SQLite file) and links the local identity provider.
  account: {},
}

/** Where every sign-out of the demo lands: the home page, which then shows a fixed "You have been signed out". */
export const SIGNED_OUT_URL = "/?signedOut=1"
/**
 * The demo's links to the built-in sign-in page name the home page as where to land: without it the page would fall
 * back to the callback-URL cookie, which the last sign-out set to {@link SIGNED_OUT_URL}, and a later sign-in with the
 * identity provider or an email link would land on `/?signedOut=1`.
 */
export const SIGN_IN_URL = "/auth/signin?callbackUrl=%2F"

// The demo's account forms carry a token bound to the session that rendered them: HMAC(key, public session id), the
// key random per process. A form from another site cannot know it; one from an ended session no longer matches.
const formKey = randomBytes(32)
const formToken = (sessionId: string) => createHmac("sha256", formKey).update(sessionId).digest("base64url")
const formTokenInput = (sessionId: string) =>
  `<input type="hidden" name="csrfToken" value="${escape(formToken(sessionId))}">`

/** A short device description from a User-Agent ("Chrome on Linux"), or "Unknown device". */
export function describeUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return "Unknown device"
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : /^curl\//.test(userAgent)
            ? "curl"
            : undefined
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X|Macintosh/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : undefined
  if (browser && system) return `${browser} on ${system}`
  return browser ?? system ?? "Unknown device"
}

/** The fixed notices of the sessions page, by the `done` query value (never the value itself). */
const sessionNotices: ReadonlyMap<unknown, string> = new Map([
  ["one", "That session was signed out."],
  ["others", "Your other sessions were signed out."],
])

/** The issuer of a configured OpenID provider (for a link to its own pages), if it has one. */
function issuerOf(config: AuthConfig, id: string): string | undefined {
  const providers: readonly unknown[] = Array.isArray(config.providers) ? config.providers : []
  for (const provider of providers) {
    const p = provider as { id?: unknown; options?: { issuer?: unknown } }
    if (p?.id === id && typeof p.options?.issuer === "string") return p.options.issuer
  }
  return undefined
}

function whoIs(session: Session): string {
  const name = session.user?.name
  const email = session.user?.email
  return `<strong>${escape(name || email || "an unnamed user")}</strong>${name && email ? ` (${escape(email)})` : ""}`
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
  const gatehouse = Gatehouse(config)
  const { handlers, auth, signIn, signOut, requireAuth, listSessions, revokeSession, revokeOtherSessions } = gatehouse
  const idpIssuer = issuerOf(config, LOCAL_IDP_ID)
  const app = express()
  app.use(express.urlencoded({ extended: false }))
  app.use("/auth", handlers)
  app.use("/dev/mailbox", mailbox.router)
  // The passkey client module (gatehouse-auth/client/webauthn), as an app would serve it from its bundle.
  app.get("/client/webauthn.js", (_req, res) => void res.type("text/javascript").send(passkeyClientScript()))

  // The home page's own form signs in server-side (POST /login below); the built-in page offers every provider.
  const loginForm = `<form class="login" method="post" action="/login">
<label class="field-label" for="login-username">Username</label>
<input class="field" id="login-username" name="username" autocomplete="username" required>
<label class="field-label" for="login-password">Password</label>
<input class="field" id="login-password" name="password" type="password" autocomplete="current-password" required>
<button class="button">Sign in here</button></form>`

  /** The request user's sessions and the current one, or null without a session. */
  const sessionsOf = async (req: express.Request, res: express.Response) => {
    const sessions = await listSessions(req, res)
    if (!sessions) return null
    return { sessions, current: sessions.find((s) => s.current) }
  }

  app.get(
    "/",
    auth(async (req, res) => {
      const session = req.auth
      // The banner is one fixed sentence shown for one fixed flag: nothing of the query reaches the page.
      const banner =
        !session && req.query.signedOut === "1"
          ? '<div class="notice" role="status"><p>You have been signed out.</p></div>'
          : ""
      if (!session) {
        const body = `${banner}<p>You are not signed in.</p>
<div class="actions"><a class="button" href="${SIGN_IN_URL}">Sign in</a></div>
<p class="muted">The built-in sign-in page offers every way in: the demo account, the local identity provider, an
email link (it lands in the <a href="/dev/mailbox">dev mailbox</a>) and passkeys. Or use the demo account here:</p>
${loginForm}`
        sendPage(res, renderPage({ title: "Gatehouse demo", path: "/", body }))
        return
      }
      const listed = await sessionsOf(req, res)
      const method = listed?.current ? signInMethods.of(listed.current.id) : undefined
      const since = listed?.current?.createdAt
      const how = method
        ? `You signed in with ${escape(signInMethodLabel(method))}${
            since ? `, ${timeElement(since * 1000, Date.now())}` : ""
          }.`
        : "This session began before the demo last restarted, so the demo no longer knows how you signed in."
      const others = (listed?.sessions.length ?? 1) - 1
      const federated =
        method === LOCAL_IDP_ID
          ? `<form method="post" action="/logout"><input type="hidden" name="federated" value="1">
<button class="button secondary">Sign out and end the session at the provider too</button></form>`
          : ""
      const atProvider =
        method === LOCAL_IDP_ID && idpIssuer
          ? `<p class="muted">Or end your session at the provider itself, on <a href="${escape(idpIssuer)}/session/end">its
sign-out page</a>: it tells the demo through back-channel logout, and this session ends too.</p>`
          : ""
      const nonce = newNonce()
      // While an admin acts as this user, every page of an app should say so and offer the way back.
      const impersonated = session.impersonatedBy
        ? `<div class="notice" role="status"><p>An admin (${escape(session.impersonatedBy)}) is acting as this user.</p>
<form method="post" action="/account/stop-impersonating">${
            listed?.current ? formTokenInput(listed.current.id) : ""
          }<button class="button">Stop impersonating</button></form></div>`
        : ""
      const body = `${impersonated}<p>Signed in as ${whoIs(session)}.</p>
<p class="muted">${how} The session is a row in the demo's SQLite database (database sessions); your browser holds only
its random token.</p>
<div class="actions"><a class="button secondary" href="${PROFILE_PATH}">Your account</a>
<a class="button secondary" href="/account/sessions">Your sessions${
        others > 0 ? ` (${others + 1})` : ""
      }</a><button class="button secondary" id="add-passkey" type="button">Add a passkey</button></div>
<p id="passkey-status" role="status"></p>
<h2>Sign out</h2>
<div class="actions"><form method="post" action="/logout"><button class="button">Sign out</button></form>${federated}</div>
<p class="muted">Or use the built-in <a href="/auth/signout?callbackUrl=${encodeURIComponent(SIGNED_OUT_URL)}">sign-out
page</a>.</p>${atProvider}
<script type="module" nonce="${escape(nonce)}">
  document.getElementById("add-passkey").addEventListener("click", async () => {
    const { registerPasskey } = await import("/client/webauthn.js")
    const result = await registerPasskey({ redirect: false })
    document.getElementById("passkey-status").textContent = result.ok
      ? "Passkey added: sign out and sign back in with it."
      : "No passkey added (" + result.error + ")."
  })
</script>`
      sendPage(res, renderPage({ title: "Gatehouse demo", path: "/", body }), { nonce })
    }),
  )

  // Server-side sign-in: the browser posts to the app, the app signs in (the origin guard checks it is same-site).
  app.post("/login", (req, res, next) => {
    const { username, password } = req.body as Record<string, string | undefined>
    signIn(req, res, "credentials", { username, password, redirectTo: "/protected" }).catch((error: unknown) => {
      if (!(error instanceof CredentialsSignin)) return next(error)
      const body = `<div class="error" role="alert"><p>Wrong username or password.</p></div>${loginForm}`
      sendPage(res, renderPage({ title: "Sign in", body }), { status: 401 })
    })
  })

  // Sign-out: local by default; `federated=1` also ends the session at the identity provider the user signed in
  // with (RP-initiated logout), which then sends the browser back through /auth/signout-callback/local-idp.
  app.post("/logout", (req, res, next) => {
    const federated = (req.body as Record<string, unknown> | undefined)?.federated === "1"
    signOut(req, res, { redirectTo: SIGNED_OUT_URL, federated }).catch(next)
  })

  app.get("/check-email", (req, res) => {
    const lifetime = lifetimeInWords(mailbox.provider.maxAge ?? 600)
    // The code form posts to Gatehouse with the double-submit token of the browser's CSRF cookie (its first part),
    // as the built-in page does; the address was sealed in a cookie when the mail was requested.
    const csrf = /(?:^|;\s*)authjs\.csrf-token=([^;|]+)(?:%7C|\|)/.exec(req.get("cookie") ?? "")?.[1] ?? ""
    const error =
      req.query.error === "Verification"
        ? '<div class="error" role="alert"><p>That code didn\'t work or has expired.</p></div>'
        : ""
    const body = `${error}<p>A sign-in link and code are on their way. This demo sends no email: the message is in the development mailbox.</p>
<div class="actions"><a class="button" href="/dev/mailbox">Open the dev mailbox</a></div>
<form class="login" method="post" action="/auth/callback/email"><input type="hidden" name="csrfToken" value="${escape(csrf)}">
<label class="field-label" for="email-code">Or type the code from the email</label>
<input class="field" id="email-code" name="code" autocomplete="one-time-code" inputmode="numeric" required>
<button class="button">Sign in with the code</button></form>
<p class="muted">The link and the code are valid for ${escape(lifetime)}; whichever you use first signs you in.</p>`
    sendPage(res, renderPage({ title: "Check your email", body }))
  })

  app.get("/protected", requireAuth(), (_req, res) => {
    const user = res.locals.session?.user
    const body = `<p>Only signed-in users see this, ${escape(user?.name || user?.email)}.</p>`
    sendPage(res, renderPage({ title: "Protected page", path: "/protected", body }))
  })

  app.get("/api/me", requireAuth(), (_req, res) => {
    res.json(res.locals.session)
  })

  const sessionItem = (info: SessionInfo, current: SessionInfo, now: number): string => {
    const method = signInMethods.of(info.id)
    const facts = [
      method ? `signed in with ${escape(signInMethodLabel(method))}` : undefined,
      info.createdAt ? `since ${timeElement(info.createdAt * 1000, now)}` : undefined,
      info.lastActiveAt ? `last seen ${timeElement(info.lastActiveAt * 1000, now)}` : undefined,
      `expires ${timeElement(info.expires * 1000, now)}`,
    ].filter(Boolean)
    const action = info.current
      ? `<form method="post" action="/logout"><button class="button secondary">Sign out</button></form>`
      : `<form method="post" action="/account/sessions/revoke">${formTokenInput(current.id)}
<input type="hidden" name="id" value="${escape(info.id)}"><button class="button secondary">Sign out</button></form>`
    return `<li class="session"><p><strong>${escape(describeUserAgent(info.userAgent))}</strong>${
      info.current ? '<span class="badge current">This device</span>' : ""
    }</p><p class="muted">${facts.join(" · ")}</p>${
      info.userAgent ? `<p class="muted"><code>${escape(info.userAgent)}</code></p>` : ""
    }<div class="inline">${action}</div></li>`
  }

  app.get("/account/sessions", requireAuth(), async (req, res, next) => {
    try {
      const listed = await sessionsOf(req, res)
      if (!listed?.current) {
        res.redirect(303, SIGN_IN_URL)
        return
      }
      const { sessions, current } = listed
      const done = sessionNotices.get(req.query.done)
      const notice = done ? `<div class="notice" role="status"><p>${escape(done)}</p></div>` : ""
      const others = sessions.length - 1
      const now = Date.now()
      const signOutOthers =
        others > 0
          ? `<div class="actions"><form method="post" action="/account/sessions/revoke-others">${formTokenInput(current.id)}
<button class="button">Sign out other devices</button></form></div>`
          : '<p class="muted">This is your only session.</p>'
      const body = `${notice}<p>You have ${sessions.length} active ${sessions.length === 1 ? "session" : "sessions"}.
Each browser or device you signed in with has its own; signing one out ends it on its next request.</p>
${signOutOthers}<ol class="list">${sessions.map((s) => sessionItem(s, current, now)).join("")}</ol>`
      sendPage(res, renderPage({ title: "Your sessions", path: "/account/sessions", body }))
    } catch (error) {
      next(error)
    }
  })

  /** Checks the account form's token against the request's session; answers 403 (nothing changed) when it fails. */
  const checkForm = async (req: express.Request, res: express.Response): Promise<SessionInfo | null> => {
    const site = req.get("sec-fetch-site")
    const token = (req.body as Record<string, unknown> | undefined)?.csrfToken
    const listed = await sessionsOf(req, res)
    const current = listed?.current
    const expected = current ? formToken(current.id) : undefined
    if ((site && site !== "same-origin" && site !== "none") || !expected || !same(token, expected)) {
      const body =
        '<div class="error" role="alert"><p>This form has expired or was sent from another site; nothing was ' +
        'changed.</p></div><p><a href="/account/sessions">Back to your sessions</a></p>'
      sendPage(res, renderPage({ title: "Nothing changed", body }), { status: 403 })
      return null
    }
    return current!
  }

  app.post("/account/sessions/revoke", requireAuth(), async (req, res, next) => {
    try {
      if (!(await checkForm(req, res))) return
      const id = (req.body as Record<string, unknown>).id
      if (typeof id !== "string" || !(await revokeSession(req, res, id))) {
        const body =
          '<div class="error" role="alert"><p>No such session: it may have ended already.</p></div>' +
          '<p><a href="/account/sessions">Back to your sessions</a></p>'
        sendPage(res, renderPage({ title: "Session not found", body }), { status: 404 })
        return
      }
      res.redirect(303, "/account/sessions?done=one")
    } catch (error) {
      next(error)
    }
  })

  app.post("/account/sessions/revoke-others", requireAuth(), async (req, res, next) => {
    try {
      if (!(await checkForm(req, res))) return
      await revokeOtherSessions(req, res)
      res.redirect(303, "/account/sessions?done=others")
    } catch (error) {
      next(error)
    }
  })

  // signIn/signOut throw MissingCSRF for a post from another site: nothing was written, answer 403.
  app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(error instanceof MissingCSRF)) return next(error)
    res.status(403).type("text/plain").send("Forbidden: cross-site request")
  })

  mountProfilePage(app, {
    gatehouse,
    requireAuth: () => requireAuth(),
    linkProvider: LOCAL_IDP_ID,
    checkForm: async (req, res) => (await checkForm(req, res)) !== null,
    tokenInput: async (req, res) => {
      const current = (await sessionsOf(req, res))?.current
      return current ? formTokenInput(current.id) : ""
    },
  })

  mountTwoFactorPage(app, {
    gatehouse,
    requireAuth: () => requireAuth(),
    checkForm: async (req, res) => (await checkForm(req, res)) !== null,
    tokenInput: async (req, res) => {
      const current = (await sessionsOf(req, res))?.current
      return current ? formTokenInput(current.id) : ""
    },
  })

  return app
}

export const app = createApp()
