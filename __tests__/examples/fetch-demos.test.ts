/** examples/hono and examples/node-http end to end over real HTTP: sign in and out server-side, a protected page. */
import { get, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import { createApp } from "../../examples/hono/app"
import { createDemoServer } from "../../examples/node-http/app"
import { demoLogin } from "../../examples/common/fetch-demo"
import { pageCss } from "../../lib/core/kernel/pages/styles"

/** Starts a demo on a free loopback port and resolves once it listens. */
function listening(start: (onListening: () => void) => Server): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = start(() => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
  })
}

const demos = [
  [
    "examples/hono",
    () =>
      listening(
        (done) =>
          serve(
            { fetch: createApp().fetch, port: 0, hostname: "127.0.0.1", overrideGlobalObjects: false },
            done,
          ) as Server,
      ),
  ],
  ["examples/node-http", () => listening((done) => createDemoServer().listen(0, "127.0.0.1", done))],
] as const

/** A browser navigation (fetch() sends `Sec-Fetch-Mode: cors`, which reads as an API client). */
function navigate(
  url: string,
  cookie = "",
): Promise<{ status: number; location?: string; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { accept: "text/html", "sec-fetch-mode": "navigate", cookie } }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      res.on("end", () =>
        resolve({ status: res.statusCode!, location: res.headers.location, body, headers: res.headers }),
      )
    }).on("error", reject)
  })
}

function sessionCookie(response: Response): string | undefined {
  const line = response.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))
  return line?.split(";")[0]
}

describe.each(demos)("%s", (_name, create) => {
  let server: Server
  let base: string
  beforeAll(async () => {
    ;({ server, base } = await create())
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base, ...headers },
      body: new URLSearchParams(fields).toString(),
    })

  it("a visitor sees the sign-in form; the protected page redirects to sign in; the API answers 401", async () => {
    const home = await navigate(`${base}/`)
    expect(home.body).toContain('<form class="login" method="post" action="/login">')
    // The Express demo's look: the built-in stylesheet with its dark-mode variables, the themed body, a strict CSP.
    expect(home.body).toContain('<body class="__next-auth-theme-auto">')
    expect(home.body).toContain(pageCss)
    expect(home.body).toContain("prefers-color-scheme:dark")
    expect(home.body).toContain('<a href="/auth/signin?callbackUrl=%2F">sign-in page</a>')
    expect(home.headers["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/)
    const page = await navigate(`${base}/protected`)
    expect(page.status).toBe(302)
    expect(page.location).toBe(`/auth/signin?callbackUrl=${encodeURIComponent(`${base}/protected`)}`)
    const signin = await navigate(`${base}${page.location}`)
    expect(signin.status).toBe(200)
    expect(signin.body).toContain("Demo account")
    expect((await fetch(`${base}/api/me`)).status).toBe(401)
  })

  it("signs in with the form, sees the protected page and the API, and signs out with the button", async () => {
    const wrong = await post("/login", { username: "demo", password: "nope" })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).toContain("Wrong username or password.")
    expect(sessionCookie(wrong)).toBeUndefined()

    const login = await post("/login", { ...demoLogin })
    expect(login.status).toBe(303)
    expect(login.headers.get("location")).toBe(`${base}/protected`)
    const cookie = sessionCookie(login)!
    expect(cookie).toBeTruthy()

    const page = await navigate(`${base}/protected`, cookie)
    expect(page.status).toBe(200)
    expect(page.body).toContain("Only signed-in users see this, Demo User.")
    const me = await fetch(`${base}/api/me`, { headers: { cookie } })
    expect((await me.json()).user.name).toBe("Demo User")
    expect((await navigate(`${base}/`, cookie)).body).toContain('<form method="post" action="/logout">')

    const crossSite = await post(
      "/logout",
      {},
      { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    )
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers.getSetCookie()).toHaveLength(0)

    const logout = await post("/logout", {}, { cookie })
    expect(logout.status).toBe(303)
    expect(logout.headers.get("location")).toBe(base)
    expect(logout.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))).toMatch(/Max-Age=0/i)
  })
})
