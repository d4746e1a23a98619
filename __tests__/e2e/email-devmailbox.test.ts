// The demo's development mailbox: mounted next to ExpressAuth, a new user signs in through the mailbox page's link,
// which the page then marks "Used" (the mailbox watches the adapter's useVerificationToken).
import type { Server } from "node:http"
import express from "express"
import request from "supertest"
import { createDevMailbox } from "../../examples/express-basic/mailbox"
import { ExpressAuth, getSession } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { cookieHeader, cookieJar } from "../express/apps"
import { openLinkOverHttp } from "../fixtures/magic-link"

const SECRET = "devmailbox-secret-0123456789abcdef0123456789"

let server: Server | undefined
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

async function startApp(log = jest.fn()) {
  const mailbox = createDevMailbox({ log })
  const adapter = mailbox.watch(MemoryAdapter())
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [mailbox.provider],
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.use("/dev/mailbox", mailbox.router)
  app.get("/me", async (req, res) => {
    res.json(await getSession(req, config))
  })
  const listening = app.listen(0, "127.0.0.1")
  await new Promise((resolve) => listening.once("listening", resolve))
  server = listening
  return { server: listening, mailbox, adapter, log }
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" }

/** The sign-in links of the mailbox page, newest first (href values, entities decoded). */
function pageLinks(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)">Sign in as /g)].map((m) =>
    m[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => entities[name]!),
  )
}

async function requestLink(app: Server, email: string) {
  const csrf = await request(app).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const response = await request(app)
    .post("/auth/signin/email")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, email, callbackUrl: "/" })
  return { jar: cookieJar(jar, response.headers["set-cookie"]), response }
}

describe("examples/express-basic/mailbox", () => {
  it("the provider is Email with id email; the empty mailbox says so", async () => {
    const { server: app, mailbox } = await startApp()
    expect(mailbox.provider).toMatchObject({ id: "email", name: "Email", type: "email" })
    const empty = await request(app).get("/dev/mailbox")
    expect(empty.status).toBe(200)
    expect(empty.headers["content-type"]).toMatch(/^text\/html/)
    expect(empty.headers["cache-control"]).toBe("no-store")
    expect(empty.headers["referrer-policy"]).toBe("no-referrer")
    expect(empty.text).toContain("No messages yet")
  })

  it("a new user signs in through the link on the mailbox page", async () => {
    const { server: app, mailbox, adapter, log } = await startApp()
    const { jar, response } = await requestLink(app, "New.User@Example.test")
    expect(response.status).toBe(302)
    expect(response.headers.location).toMatch(/\/auth\/verify-request\?provider=email&type=email$/)

    const [message] = mailbox.messages()
    expect(message).toMatchObject({ to: "new.user@example.test", subject: expect.stringMatching(/^Sign in to /) })
    expect(message!.text).toContain(message!.url)
    expect(message!.sentAt).toBeInstanceOf(Date)
    expect(log).toHaveBeenCalledWith(`Sign-in link for new.user@example.test: ${message!.url}`)

    const mailboxPage = await request(app).get("/dev/mailbox")
    const links = pageLinks(mailboxPage.text)
    expect(links).toEqual([message!.url])
    // The & between the link's parameters is escaped in the page.
    expect(mailboxPage.text).not.toMatch(/[?&](?:token|email)=[^"]*&(?:token|email)=/)

    const link = new URL(links[0]!)
    // The link shows the confirmation page first (ML-5); its button posts the sign-in.
    const callback = await openLinkOverHttp(link.href, cookieHeader(jar))
    expect(callback.status).toBe(302)
    const signedIn = cookieJar(jar, callback.headers.getSetCookie())
    const me = await request(app).get("/me").set("Cookie", cookieHeader(signedIn))
    expect(me.body.user).toMatchObject({ email: "new.user@example.test" })
    expect((await adapter.getUserByEmail("new.user@example.test"))?.emailVerified).toBeInstanceOf(Date)

    // The page now marks the link used, and no longer offers it.
    const after = await request(app).get("/dev/mailbox")
    expect(after.text).toContain('<span class="badge used">Used</span>')
    expect(pageLinks(after.text)).toEqual([])

    const again = await openLinkOverHttp(link.href)
    expect(again.status).toBe(403)
    expect(await again.text()).toContain("<h1>This link was already used</h1>")
  })

  it("keeps the last 20 messages, newest first", async () => {
    const { server: app, mailbox } = await startApp()
    for (let i = 0; i < 22; i += 1) {
      await mailbox.provider.sendVerificationRequest({
        identifier: `user${i}@example.test`,
        url: `http://app.test/auth/callback/email?token=t${i}&email=user${i}%40example.test`,
        token: `t${i}`,
        expires: new Date(Date.now() + 60_000),
        provider: mailbox.provider,
        theme: {},
        request: new Request("http://app.test/auth/signin/email", { method: "POST" }),
      })
    }
    const kept = mailbox.messages()
    expect(kept).toHaveLength(20)
    expect(kept[0]!.to).toBe("user21@example.test")
    expect(kept.at(-1)!.to).toBe("user2@example.test")
    const page = await request(app).get("/dev/mailbox")
    expect(pageLinks(page.text)).toEqual(kept.map((m) => m.url))
    expect(page.text).toContain("token=t21&amp;email=user21%40example.test")
  })

  it("escapes what it shows", async () => {
    const { server: app, mailbox } = await startApp()
    await mailbox.provider.sendVerificationRequest({
      identifier: "<script>alert(1)</script>@example.test",
      url: `http://app.test/auth/callback/email?token="><script>alert(2)</script>`,
      token: "t",
      expires: new Date(Date.now() + 60_000),
      provider: mailbox.provider,
      theme: {},
      request: new Request("http://app.test/auth/signin/email", { method: "POST" }),
    })
    const page = await request(app).get("/dev/mailbox")
    expect(page.text).not.toContain("<script>")
    expect(page.text).toContain("<code>&lt;script&gt;alert(1)&lt;/script&gt;@example.test</code>")
    expect(pageLinks(page.text)).toEqual([`http://app.test/auth/callback/email?token="><script>alert(2)</script>`])
  })

  it("answers 404 in production", async () => {
    const { server: app } = await startApp()
    const saved = process.env.NODE_ENV
    process.env.NODE_ENV = "production"
    try {
      expect((await request(app).get("/dev/mailbox")).status).toBe(404)
    } finally {
      process.env.NODE_ENV = saved
    }
  })
})
