// End to end through Express (supertest) + Nodemailer + real SMTP: the link's origin never comes from forged headers.
import type { Server } from "node:http"
import request from "supertest"
import { ExpressAuth, getSession } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Nodemailer from "../../lib/providers/nodemailer"
import { cookieHeader, cookieJar, versions, type ExpressFactory } from "../express/apps"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { emailConfig, FROM } from "../core/email/harness"
import { confirmFormOf } from "../fixtures/magic-link"

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => smtp.clear())

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/** The app on one listening server: supertest would otherwise give every request a new port (a new origin). */
async function buildApp(express: ExpressFactory, config: AuthConfig): Promise<Server> {
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.get("/me", async (req, res) => {
    res.json(await getSession(req, config))
  })
  const server = app.listen(0, "127.0.0.1")
  servers.push(server)
  await new Promise((resolve) => server.once("listening", resolve))
  return server
}

/**
 * Opens a link as a browser: GET shows the confirmation page (ML-5), then its form is posted with the page's cookies.
 * Returns the POST's response and the jar after it.
 */
async function openLink(app: Server, link: URL, jar: Record<string, string>, headers: Record<string, string> = {}) {
  const page = await request(app).get(`${link.pathname}${link.search}`).set(headers).set("Cookie", cookieHeader(jar))
  expect(page.status).toBe(200)
  const { action, fields } = confirmFormOf(page.text)
  const withPage = cookieJar(jar, page.headers["set-cookie"])
  const response = await request(app)
    .post(new URL(action).pathname)
    .set(headers)
    .set("Cookie", cookieHeader(withPage))
    .type("form")
    .send(fields)
  return { response, jar: cookieJar(withPage, response.headers["set-cookie"]) }
}

/** GET /auth/csrf then POST /auth/signin/nodemailer with `headers` on both; returns the jar and the response. */
async function requestLink(app: Server, email: string, headers: Record<string, string> = {}) {
  const csrf = await request(app).get("/auth/csrf").set(headers)
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const response = await request(app)
    .post("/auth/signin/nodemailer")
    .set(headers)
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, email, callbackUrl: "/dashboard" })
  return { jar: cookieJar(jar, response.headers["set-cookie"]), response }
}

describe.each(versions)("%s", (_name, express) => {
  it("signs in with the emailed link; getSession sees the user", async () => {
    const { config, adapter } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const app = await buildApp(express, config)
    const { jar, response } = await requestLink(app, "Ada@Example.test")
    expect(response.status).toBe(302)
    const origin = new URL(response.headers.location!).origin
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(response.headers.location).toBe(`${origin}/auth/verify-request?provider=nodemailer&type=email`)

    const message = await smtp.nextMessage()
    expect(message.envelope.rcptTo).toEqual(["ada@example.test"])
    const link = new URL(signInLinkOf(message))
    expect(link.origin).toBe(origin)

    const { response: callback, jar: signedIn } = await openLink(app, link, jar)
    expect(callback.status).toBe(302)
    expect(callback.headers.location).toBe(`${origin}/dashboard`)
    expect(signedIn["authjs.session-token"]).toBeTruthy()

    const me = await request(app).get("/me").set("Cookie", cookieHeader(signedIn))
    expect(me.body.user).toMatchObject({ email: "ada@example.test" })
    expect((await adapter.getUserByEmail("ada@example.test"))?.emailVerified).toBeInstanceOf(Date)

    // Opened again, the used link says so at once (issue 29), with no confirmation button left to fail.
    const replay = await request(app).get(`${link.pathname}${link.search}`)
    expect(replay.status).toBe(403)
    expect(replay.text).toContain("<h1>This link was already used</h1>")
  })

  it("trust proxy off: a forged X-Forwarded-Host does not reach the link", async () => {
    const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })])
    const app = await buildApp(express, config)
    const { response } = await requestLink(app, "ada@example.test", {
      "X-Forwarded-Host": "evil.example",
      "X-Forwarded-Proto": "https",
    })
    expect(response.status).toBe(302)
    const link = new URL(signInLinkOf(await smtp.nextMessage()))
    expect(link.protocol).toBe("http:")
    expect(link.hostname).toBe("127.0.0.1")
    expect(link.href).not.toContain("evil.example")
  })

  describe("with AUTH_URL", () => {
    const saved = process.env.AUTH_URL
    beforeAll(() => {
      process.env.AUTH_URL = "https://app.example/auth"
    })
    afterAll(() => {
      if (saved === undefined) delete process.env.AUTH_URL
      else process.env.AUTH_URL = saved
    })

    it("the link is built from AUTH_URL's origin, never from a forged Host or X-Forwarded-Host", async () => {
      const { config } = emailConfig([Nodemailer({ server: smtp.url, from: FROM })], { trustHost: undefined })
      const app = await buildApp(express, config)
      const forged = { Host: "evil.example", "X-Forwarded-Host": "evil2.example", "X-Forwarded-Proto": "http" }
      const { jar, response } = await requestLink(app, "ada@example.test", forged)
      expect(response.status).toBe(302)
      expect(response.headers.location).toBe("https://app.example/auth/verify-request?provider=nodemailer&type=email")

      const message = await smtp.nextMessage()
      expect(message.subject).toBe("Sign in to app.example")
      const link = new URL(signInLinkOf(message))
      expect(`${link.origin}${link.pathname}`).toBe("https://app.example/auth/callback/nodemailer")
      expect(link.searchParams.get("callbackUrl")).toBe("https://app.example/dashboard")
      expect(message.text + message.html).not.toMatch(/evil2?\.example/)

      const { response: callback, jar: signedIn } = await openLink(app, link, jar, { Host: "evil.example" })
      expect(callback.headers.location).toBe("https://app.example/dashboard")
      expect(signedIn["__Secure-authjs.session-token"]).toBeTruthy()
      const me = await request(app).get("/me").set("Cookie", cookieHeader(signedIn))
      expect(me.body.user).toMatchObject({ email: "ada@example.test" })
    })
  })
})
