/**
 * What the Fetch-flavour demos (examples/hono, examples/node-http) share: one Gatehouse from `gatehouse-auth/web`
 * with a demo credentials login, and the HTML of their pages.
 */
import { timingSafeEqual } from "node:crypto"
import { Gatehouse, type Session, type WebGatehouse } from "../../lib/web"
import Credentials from "../../lib/providers/credentials"

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

const loginForm = `<form method="post" action="/login">
<label>Username <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button>Sign in</button></form>`

/**
 * A page of the demo, as a `Response`.
 *
 * @example
 * ```ts
 * return page("Gatehouse demo", homeBody(session))
 * ```
 */
export function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body><nav><a href="/">Home</a> <a href="/protected">Protected page</a> <a href="/api/me">API: /api/me</a></nav>
<h1>${escape(title)}</h1>${body}</body></html>`
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8" } })
}

/** The home page: who is signed in, with a sign-out button; or the sign-in form. */
export function homeBody(session: Session | null): string {
  return session
    ? `<p>Signed in as <strong>${escape(session.user?.name)}</strong>.</p>
<form method="post" action="/logout"><button>Sign out</button></form>`
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
