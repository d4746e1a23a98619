// The SMTP server behind a fault proxy: a magic-link request while SMTP stops answering, refuses connections, or cuts
// one mid-conversation ends on the sign-in page with error=EmailSignInError within the SMTP time limits, sends nothing and
// leaves no usable token; once SMTP is back the next request delivers a link that signs in.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import request from "supertest"
import { ExpressAuth } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Nodemailer, { SMTP_TIMEOUTS } from "../../lib/providers/nodemailer"
import { cookieHeader, cookieJar } from "../express/apps"
import { startFaultProxy, type FaultProxy } from "../fixtures/fault-proxy"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { openLinkOverHttp } from "../fixtures/magic-link"

let smtp: SmtpFixture
let proxy: FaultProxy
let server: Server
let origin = ""
const errors: Error[] = []

beforeAll(async () => {
  smtp = await startSmtpServer()
  proxy = await startFaultProxy({ host: "127.0.0.1", port: smtp.port })
  const config: AuthConfig = {
    secret: "faults-smtp-secret-0123456789abcdef01234",
    trustHost: true,
    adapter: MemoryAdapter(),
    logger: { error: (e) => errors.push(e), warn: () => undefined, debug: () => undefined },
    providers: [
      Nodemailer({
        // Short limits so the test stays fast; the defaults are SMTP_TIMEOUTS (10 s each).
        server: {
          host: "127.0.0.1",
          port: proxy.port,
          connectionTimeout: 300,
          greetingTimeout: 300,
          socketTimeout: 300,
        },
        from: "Gatehouse <no-reply@example.test>",
      }),
    ],
  }
  const app = express()
  app.use("/auth", ExpressAuth(config))
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    errors.push(Object.assign(error, { escaped: true }))
    res.status(500).end()
  })
  server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(() => {
  proxy.reset()
  proxy.mode = "pass"
  errors.length = 0
})
afterAll(async () => {
  await proxy.close()
  await smtp.stop()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

async function requestLink(email: string) {
  const csrf = await request(server).get("/auth/csrf")
  const jar = cookieJar({}, csrf.headers["set-cookie"])
  const response = await request(server)
    .post("/auth/signin/nodemailer")
    .set("Cookie", cookieHeader(jar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken, email, callbackUrl: "/dashboard" })
  return { response, jar }
}

it("the SMTP time limits default to 10 s each (nodemailer's own would hold a request for minutes)", () => {
  expect(SMTP_TIMEOUTS).toEqual({
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
    dnsTimeout: 10_000,
  })
})

describe.each(["blackhole", "drop", "reset"] as const)("SMTP fault: %s", (fault) => {
  it("a magic-link request fails cleanly, sends nothing; the next one after recovery signs in", async () => {
    const email = `nia-${fault}@example.test`
    const before = smtp.messages.length
    let pending: ReturnType<typeof requestLink>
    if (fault === "reset") {
      proxy.mode = "blackhole"
      pending = requestLink(email)
      await new Promise((resolve) => setTimeout(resolve, 100))
      proxy.reset()
    } else {
      proxy.mode = fault
      pending = requestLink(email)
    }
    const { response } = await pending
    expect(response.status).toBe(302)
    expect(response.headers.location).toBe(`${origin}/auth/signin?error=EmailSignInError`)
    expect(errors.map((e) => (e as { type?: string }).type)).toContain("EmailSignInError")
    expect(errors.some((e) => "escaped" in e)).toBe(false)
    expect(smtp.messages.length).toBe(before)

    proxy.reset()
    proxy.mode = "pass"
    const ok = await requestLink(email)
    expect(ok.response.headers.location).toMatch(/\/auth\/verify-request\?/)
    const link = new URL(signInLinkOf(await smtp.nextMessage()))
    // The link shows the confirmation page (ML-5); its form posts the sign-in.
    const signedIn = await openLinkOverHttp(`${origin}${link.pathname}${link.search}`, cookieHeader(ok.jar))
    expect(signedIn.headers.get("location")).toBe(`${origin}/dashboard`)
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })
})

it("a slow SMTP server within the limits still delivers (delay mode)", async () => {
  proxy.mode = "delay"
  proxy.delayMs = 5
  const { response } = await requestLink("oli@example.test")
  expect(response.headers.location).toMatch(/\/auth\/verify-request\?/)
  expect((await smtp.nextMessage()).envelope.rcptTo).toEqual(["oli@example.test"])
})
