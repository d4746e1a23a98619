/**
 * What the Fetch-flavour demos (examples/hono, examples/node-http) share: one Gatehouse from `gatehouse-auth/web`
 * with a demo credentials login, and the HTML of their pages.
 */
import { timingSafeEqual } from "node:crypto"
import { Gatehouse, type Session, type WebGatehouse } from "../../lib/web"
import Credentials from "../../lib/providers/credentials"
import { pageCss } from "../../lib/core/kernel/pages/styles"

/** The demo login, printed when a demo server starts. */
export const demoLogin = { username: "demo", password: "gatehouse" } as const

function same(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The demos' Gatehouse: JWT sessions, a credentials provider, and `/protected` open to signed-in users only.
 *
 * @example
 * ```ts
 * const gh = createDemoGatehouse()
 * const response = await gh.handle(request)
 * ```
 */
export function createDemoGatehouse(): WebGatehouse {
  return Gatehouse({
    basePath: "/auth",
    providers: [
      Credentials({
        name: "Demo account",
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        authorize: (c) =>
          same(c.username, demoLogin.username) && same(c.password, demoLogin.password)
            ? { id: "demo-user", name: "Demo User", email: "demo@example.test" }
            : null,
      }),
    ],
    callbacks: {
      // Only /protected needs a session; every other page is public.
      authorized: ({ auth, request }) => !request.nextUrl.pathname.startsWith("/protected") || Boolean(auth),
    },
  })
}

const escape = (value: unknown) => String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const loginForm = `<form class="login" method="post" action="/login">
<label class="field-label" for="login-username">Username</label>
<input class="field" id="login-username" name="username" autocomplete="username" required>
<label class="field-label" for="login-password">Password</label>
<input class="field" id="login-password" name="password" type="password" autocomplete="current-password" required>
<button class="button">Sign in</button></form>
<p class="muted">Or use the built-in <a href="/auth/signin?callbackUrl=%2F">sign-in page</a>.</p>`

// The Express demo's look: the built-in pages' stylesheet (light and dark mode follow the system), a navigation bar
// and a wide card, in the same colour variables.
const demoCss =
  ".page.demo{justify-content:flex-start;padding-top:1.25rem}" +
  ".demo-nav{display:flex;flex-wrap:wrap;gap:.35rem 1.25rem;width:100%;max-width:40rem;font-size:.95rem}" +
  ".demo-nav a,.card.wide a:not(.button){color:var(--gh-fg)}" +
  ".card.wide{max-width:40rem}.card.wide p{color:var(--gh-fg)}.card p.muted{color:var(--gh-muted)}" +
  ".login{display:flex;flex-direction:column;margin:.5rem 0 1rem}.card form{margin:0}" +
  ".card form .button{width:auto}"

/**
 * A page of the demo, as a `Response`: the built-in pages' look, a strict CSP (no script at all).
 *
 * @example
 * ```ts
 * return page("Gatehouse demo", homeBody(session))
 * ```
 */
export function page(title: string, body: string, status = 200): Response {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escape(title)}</title><style>${pageCss}${demoCss}</style></head>` +
    '<body class="__next-auth-theme-auto"><div class="page demo">' +
    '<nav class="demo-nav" aria-label="Demo"><a href="/">Home</a><a href="/protected">Protected page</a>' +
    '<a href="/api/me">API: /api/me</a></nav>' +
    `<main class="card wide"><h1>${escape(title)}</h1>${body}</main></div></body></html>`
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  })
}

/** The home page: who is signed in, with a sign-out button; or the sign-in form. */
export function homeBody(session: Session | null): string {
  return session
    ? `<p>Signed in as <strong>${escape(session.user?.name)}</strong>.</p>
<form method="post" action="/logout"><button class="button">Sign out</button></form>`
    : `<p>You are not signed in.</p>${loginForm}`
}

/** The sign-in form again, after a wrong password. */
export function loginAgainBody(): string {
  return `<p>Wrong username or password.</p>${loginForm}`
}

/** The protected page. */
export function protectedBody(session: Session | null): string {
  return `<p>Only signed-in users see this, ${escape(session?.user?.name)}.</p>`
}
