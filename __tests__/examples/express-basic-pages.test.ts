// The demo's own pages (issue 9, first-hour rows 19-20): styled like the built-in pages with light and dark mode, a
// strict CSP (the one inline script nonce'd), everything escaped, the fixed "You have been signed out" banner, and the
// dev mailbox with used/expired badges, relative times and a way back.
import type { Express } from "express"
import request from "supertest"
import { authConfig, createApp, createDemoAdapter, demoLogin } from "../../examples/express-basic/app"
import { createDevMailbox } from "../../examples/express-basic/mailbox"
import { relativeTime } from "../../examples/express-basic/pages"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { pageCss } from "../../lib/core/kernel/pages/styles"
import Credentials from "../../lib/providers/credentials"
import type { SendVerificationRequestParams } from "../../lib/providers/types"
import { cookieHeader, cookieJar } from "../express/apps"

const HOSTILE = `<img src=x onerror="alert(1)">'&`
const HOSTILE_ESCAPED = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;"

let app: Express
beforeEach(() => {
  app = createApp({ ...authConfig, adapter: createDemoAdapter(":memory:") })
})

async function signIn(target: Express = app): Promise<string> {
  const csrf = await request(target).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const ok = await request(target)
    .post("/auth/callback/credentials")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, ...demoLogin })
  expect(ok.status).toBe(302)
  jar = cookieJar(jar, ok.headers["set-cookie"])
  return cookieHeader(jar)
}

describe("the demo's pages", () => {
  it("share the built-in stylesheet (light and dark), a navigation bar and a strict CSP without script", async () => {
    for (const path of ["/", "/?signedOut=1", "/dev/mailbox"]) {
      const page = await request(app).get(path)
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toMatch(/^text\/html/)
      expect(page.text).toContain(pageCss)
      expect(page.text).toContain("@media (prefers-color-scheme:dark){.__next-auth-theme-auto{")
      expect(page.text).toContain('<body class="__next-auth-theme-auto">')
      expect(page.text).toContain('<nav class="demo-nav" aria-label="Demo">')
      expect(page.headers["content-security-policy"]).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self' http: https:; " +
          "frame-ancestors 'none'; base-uri 'none'",
      )
      expect(page.headers["x-frame-options"]).toBe("DENY")
      expect(page.text).not.toContain("<script")
    }
  })

  it("the home page says who is signed in and how; its one script carries the response's nonce", async () => {
    const cookie = await signIn()
    const home = await request(app).get("/").set("Cookie", cookie)
    expect(home.text).toContain("Signed in as <strong>Demo User</strong> (demo@example.test).")
    expect(home.text).toMatch(
      /You signed in with the demo account \(username and password\), <time datetime="[^"]+" title="[^"]+">just now<\/time>\./,
    )
    expect(home.text).toContain('<a class="button secondary" href="/account/sessions">Your sessions</a>')
    // A credentials session offers local sign-out only: there is no provider session to end.
    expect(home.text).not.toContain("end the session at the provider")
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)' 'self'; connect-src 'self'$/.exec(
      home.headers["content-security-policy"],
    )?.[1]
    expect(nonce).toBeDefined()
    expect(home.text.match(/<script/g)).toHaveLength(1)
    expect(home.text).toContain(`<script type="module" nonce="${nonce}">`)
    // A fresh nonce per response.
    const again = await request(app).get("/").set("Cookie", cookie)
    expect(again.headers["content-security-policy"]).not.toContain(nonce)
  })

  it("a second session of the same user shows on the home page's sessions button", async () => {
    const first = await signIn()
    await signIn()
    const home = await request(app).get("/").set("Cookie", first)
    expect(home.text).toContain('href="/account/sessions">Your sessions (2)</a>')
  })

  it("escapes what the user's profile says, on the home and protected pages", async () => {
    const hostileApp = createApp({
      ...authConfig,
      adapter: SQLiteAdapter(":memory:"),
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize: () => ({ id: "hostile", name: HOSTILE, email: "hostile@example.test" }),
        }),
      ],
    })
    const cookie = await signIn(hostileApp)
    const home = await request(hostileApp).get("/").set("Cookie", cookie)
    expect(home.text).toContain(`Signed in as <strong>${HOSTILE_ESCAPED}</strong> (hostile@example.test).`)
    // This app does not note sign-in methods (a plain adapter): the page says so instead of guessing.
    expect(home.text).toContain("the demo no longer knows how you signed in")
    const page = await request(hostileApp).get("/protected").set("Cookie", cookie).set("Accept", "text/html")
    expect(page.text).toContain(`Only signed-in users see this, ${HOSTILE_ESCAPED}.`)
    for (const text of [home.text, page.text]) expect(text).not.toContain("<img")
  })
})

describe("the demo's built-in sign-in page", () => {
  it("labels the email link's field and the passkey's apart (no longer two identical Email fields)", async () => {
    const page = await request(app).get("/auth/signin")
    const label = (id: string) =>
      new RegExp(`<label class="field-label" for="${id}">([^<]+)</label>`).exec(page.text)?.[1]
    expect(label("input-email-for-email-provider")).toBe("Email")
    expect(label("input-email-for-passkey-provider")).toBe("Email for your passkey")
    // The email link's and the passkey's fields show the same hint.
    for (const id of ["input-email-for-email-provider", "input-email-for-passkey-provider"]) {
      expect(page.text).toMatch(new RegExp(`id="${id}"[^>]*placeholder="email@example.com"`))
    }
    // The card says where you sign in; the local identity provider gets "L", not the "T" of "the".
    expect(page.text).toMatch(/<main class="card signin"><h1>Sign in to 127\.0\.0\.1:\d+<\/h1>/)
    const idpButton = /<svg class="provider-mark"[^]*?<span>Sign in with the local identity provider<\/span>/.exec(
      page.text,
    )
    expect(idpButton?.[0]).toMatch(/>L<\/text><\/svg><span>Sign in with the local identity provider/)
  })
})

describe("the demo's check-your-email page", () => {
  it("follows an email sign-in request and points to the dev mailbox, with the link's lifetime", async () => {
    const csrf = await request(app).get("/auth/csrf").set("Host", "localhost:3000")
    const jar = cookieJar({}, csrf.headers["set-cookie"])
    const sent = await request(app)
      .post("/auth/signin/email")
      .set("Host", "localhost:3000")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, email: "check@example.test" })
    expect(sent.headers.location).toBe("http://localhost:3000/auth/verify-request?provider=email&type=email")
    const verify = await request(app).get("/auth/verify-request?provider=email&type=email")
    expect(verify.status).toBe(302)
    expect(verify.headers.location).toBe("/check-email?provider=email&type=email")
    const page = await request(app).get(verify.headers.location!)
    expect(page.status).toBe(200)
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'")
    expect(page.text).toContain("<title>Check your email · Gatehouse demo</title>")
    expect(page.text).toContain('<a class="button" href="/dev/mailbox">Open the dev mailbox</a>')
    expect(page.text).toContain("The link and the code are valid for 10 minutes; whichever you use first signs you in.")
    expect(page.text).toContain('<form class="login" method="post" action="/auth/callback/email">')
  })
})

describe('the "You have been signed out" banner', () => {
  const BANNER = '<div class="notice" role="status"><p>You have been signed out.</p></div>'

  it("follows the demo's sign-out: POST /logout lands on /?signedOut=1, which shows the fixed sentence", async () => {
    const cookie = await signIn()
    const logout = await request(app).post("/logout").set("Sec-Fetch-Site", "same-origin").set("Cookie", cookie)
    expect(logout.status).toBe(303)
    const location = new URL(logout.headers.location!)
    expect(`${location.pathname}${location.search}`).toBe("/?signedOut=1")
    const home = await request(app).get("/?signedOut=1")
    expect(home.text).toContain(BANNER)
    expect(home.text).toContain("You are not signed in.")
  })

  it("the built-in sign-out page's link returns to the same banner", async () => {
    const cookie = await signIn()
    const home = await request(app).get("/").set("Cookie", cookie)
    const link = "/auth/signout?callbackUrl=%2F%3FsignedOut%3D1"
    expect(home.text).toContain(`href="${link}"`)
    // One Host for both requests (supertest picks a new port per request, and the origin must not change).
    const page = await request(app).get(link).set("Host", "localhost:3000").set("Cookie", cookie)
    expect(page.status).toBe(200)
    const jar = cookieJar(
      Object.fromEntries(cookie.split("; ").map((c) => [c.slice(0, c.indexOf("=")), c.slice(c.indexOf("=") + 1)])),
      page.headers["set-cookie"],
    )
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1]
    const out = await request(app)
      .post(link)
      .set("Host", "localhost:3000")
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: field("csrfToken"), callbackUrl: field("callbackUrl")?.replace(/&amp;/g, "&") })
    expect(out.status).toBe(302)
    expect(out.headers.location).toBe("http://localhost:3000/?signedOut=1")
    expect(cookieJar(jar, out.headers["set-cookie"])["authjs.session-token"]).toBeUndefined()
  })

  it("a later sign-in from the signed-out home page lands on the home page, not on /?signedOut=1 again", async () => {
    const host = "localhost:3000"
    const csrf = await request(app).get("/auth/csrf").set("Host", host)
    let jar = cookieJar({}, csrf.headers["set-cookie"])
    const ok = await request(app)
      .post("/auth/callback/credentials")
      .set("Host", host)
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, ...demoLogin })
    jar = cookieJar(jar, ok.headers["set-cookie"])
    const out = await request(app)
      .post("/logout")
      .set("Host", host)
      .set("Sec-Fetch-Site", "same-origin")
      .set("Cookie", cookieHeader(jar))
    jar = cookieJar(jar, out.headers["set-cookie"])
    const home = await request(app).get("/?signedOut=1").set("Host", host).set("Cookie", cookieHeader(jar))
    const link = /<a class="button" href="([^"]+)">Sign in<\/a>/.exec(home.text)![1]!
    // The built-in page's forms (the identity provider's button, the email form) carry the home page, not the flag.
    const page = await request(app).get(link).set("Host", host).set("Cookie", cookieHeader(jar))
    const targets = [...page.text.matchAll(/name="callbackUrl" value="([^"]*)"/g)].map((m) => m[1])
    expect(targets.length).toBeGreaterThan(0)
    expect(new Set(targets)).toEqual(new Set(["http://localhost:3000/"]))
  })

  it("shows only for the exact flag, never reflects the query, and never to a signed-in user", async () => {
    for (const value of ["0", "true", "11", "", "<script>alert(1)</script>", HOSTILE]) {
      const page = await request(app).get(`/?signedOut=${encodeURIComponent(value)}`)
      expect(page.status).toBe(200)
      expect(page.text).not.toContain("You have been signed out")
      if (value.length > 2) expect(page.text).not.toContain(value)
    }
    const twice = await request(app).get("/?signedOut=1&signedOut=1")
    expect(twice.text).not.toContain("You have been signed out")
    const cookie = await signIn()
    const signedIn = await request(app).get("/?signedOut=1").set("Cookie", cookie)
    expect(signedIn.text).toContain("Signed in as")
    expect(signedIn.text).not.toContain("You have been signed out")
  })
})

describe("the dev mailbox", () => {
  const start = Date.UTC(2026, 10, 23, 12, 0, 0)
  let now = start

  function send(mailbox: ReturnType<typeof createDevMailbox>, identifier: string, url: string, expires: Date) {
    const params = { identifier, url, expires, theme: {} } as unknown as SendVerificationRequestParams
    return mailbox.provider.sendVerificationRequest(params)
  }

  async function mailboxPage(mailbox: ReturnType<typeof createDevMailbox>) {
    const express = (await import("express")).default
    const server = express().use("/dev/mailbox", mailbox.router)
    return request(server).get("/dev/mailbox")
  }

  beforeEach(() => {
    now = start
  })

  it("relative times, a Valid badge with a link, then Expired without one; a link back to the demo", async () => {
    const mailbox = createDevMailbox({ now: () => now, log: () => {} })
    const empty = await mailboxPage(mailbox)
    expect(empty.text).toContain("No messages yet.")
    expect(empty.text).toContain('<a href="/">Back to the demo</a>')

    const url = "http://localhost:3000/auth/callback/email?token=abc&email=ada%40example.test"
    await send(mailbox, "ada@example.test", url, new Date(start + 600_000))
    let page = await mailboxPage(mailbox)
    expect(page.headers["referrer-policy"]).toBe("no-referrer")
    expect(page.headers["cache-control"]).toBe("no-store")
    expect(page.text).toContain('<span class="badge valid">Valid</span>')
    expect(page.text).toContain(
      `<time datetime="2026-11-23T12:00:00.000Z" title="2026-11-23T12:00:00.000Z">just now</time>`,
    )
    expect(page.text).toMatch(/expires <time[^>]*>in 10 minutes<\/time>/)
    expect(page.text).toContain(`<a href="${url.replace(/&/g, "&amp;")}">Sign in as ada@example.test</a>`)

    now = start + 2 * 60_000 + 5_000
    page = await mailboxPage(mailbox)
    expect(page.text).toMatch(/sent <time[^>]*>2 minutes ago<\/time>/)
    expect(page.text).toMatch(/expires <time[^>]*>in 7 minutes<\/time>/)

    now = start + 11 * 60_000
    page = await mailboxPage(mailbox)
    expect(page.text).toContain('<span class="badge expired">Expired</span>')
    expect(page.text).toMatch(/expired <time[^>]*>1 minute ago<\/time>/)
    expect(page.text).not.toContain(`<a href="${url.replace(/&/g, "&amp;")}"`)
    expect(page.text).toContain("Sign in as ada@example.test (no longer works)")
  })

  it("a link whose token the adapter consumed is marked Used (real SQLite adapter); a second message stays Valid", async () => {
    const mailbox = createDevMailbox({ now: () => now, log: () => {} })
    const adapter = mailbox.watch(SQLiteAdapter(":memory:"))
    const first = new Date(start + 600_000)
    const second = new Date(start + 601_000)
    await adapter.createVerificationToken({ identifier: "ada@example.test", token: "hash-1", expires: first })
    await adapter.createVerificationToken({ identifier: "ada@example.test", token: "hash-2", expires: second })
    await send(mailbox, "ada@example.test", "http://localhost:3000/auth/callback/email?token=one", first)
    await send(mailbox, "ada@example.test", "http://localhost:3000/auth/callback/email?token=two", second)

    // A wrong token consumes nothing and marks nothing.
    expect(await adapter.useVerificationToken({ identifier: "ada@example.test", token: "nope" })).toBeNull()
    now = start + 60_000
    expect(await adapter.useVerificationToken({ identifier: "ada@example.test", token: "hash-1" })).not.toBeNull()
    now = start + 3 * 60_000
    const page = await mailboxPage(mailbox)
    const used = mailbox.messages().find((m) => m.url.endsWith("token=one"))
    expect(used?.usedAt?.valueOf()).toBe(start + 60_000)
    expect(mailbox.messages().find((m) => m.url.endsWith("token=two"))?.usedAt).toBeUndefined()
    expect(page.text.match(/badge used">Used</g)).toHaveLength(1)
    expect(page.text.match(/badge valid">Valid</g)).toHaveLength(1)
    expect(page.text).toMatch(/used <time[^>]*>2 minutes ago<\/time>/)
  })

  it("a token consumed after it expired leaves the message Expired, not Used", async () => {
    const mailbox = createDevMailbox({ now: () => now, log: () => {} })
    const adapter = mailbox.watch(SQLiteAdapter(":memory:"))
    const expires = new Date(start + 60_000)
    await adapter.createVerificationToken({ identifier: "bo@example.test", token: "h", expires })
    await send(mailbox, "bo@example.test", "http://localhost:3000/auth/callback/email?token=x", expires)
    now = start + 120_000
    expect(await adapter.useVerificationToken({ identifier: "bo@example.test", token: "h" })).not.toBeNull()
    const page = await mailboxPage(mailbox)
    expect(page.text).toContain('<span class="badge expired">Expired</span>')
    expect(page.text).not.toContain("badge used")
  })

  it("escapes the address, the subject and the URL", async () => {
    const mailbox = createDevMailbox({ now: () => now, log: () => {} })
    await send(mailbox, HOSTILE, `http://localhost:3000/x?a="><script>alert(1)</script>`, new Date(start + 600_000))
    const page = await mailboxPage(mailbox)
    expect(page.text).toContain(`<code>${HOSTILE_ESCAPED}</code>`)
    expect(page.text).toContain('href="http://localhost:3000/x?a=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(page.text).not.toContain("<script")
    expect(page.text).not.toContain("<img")
  })

  it("answers 404 in production", async () => {
    const saved = process.env.NODE_ENV
    process.env.NODE_ENV = "production"
    try {
      const mailbox = createDevMailbox({ log: () => {} })
      expect((await mailboxPage(mailbox)).status).toBe(404)
    } finally {
      process.env.NODE_ENV = saved
    }
  })
})

describe("relativeTime", () => {
  const now = Date.UTC(2026, 0, 1)
  it.each([
    [0, "just now"],
    [-44_000, "just now"],
    [-50_000, "1 minute ago"],
    [-120_000, "2 minutes ago"],
    [-(59 * 60_000 + 59_000), "59 minutes ago"],
    [-3_600_000, "1 hour ago"],
    [-5 * 3_600_000, "5 hours ago"],
    [-86_400_000, "yesterday"],
    [-3 * 86_400_000, "3 days ago"],
    [10 * 60_000, "in 10 minutes"],
    [86_400_000 * 2, "in 2 days"],
    [-400 * 86_400_000, "last year"],
  ])("%d ms from now is %s", (offset, words) => {
    expect(relativeTime(now + offset, now)).toBe(words)
  })
})
