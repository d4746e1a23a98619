// T4 (two-factor spec section 11): every first factor ends in the second step. A user who enrolled TOTP signs in
// with a real OpenID Provider (oidc-provider) and with an email link: each time, no session until the TOTP code.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Email from "../../lib/providers/email"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { cookieHeader, cookieJar, SECRET } from "../express/apps"
import { confirmFormOf } from "../fixtures/magic-link"
import {
  driveAuthorization,
  startOidcProvider,
  testOidcProvider,
  type StartedOidcProvider,
} from "../fixtures/oauth/oidc-provider"
import { totpCode as totpNow } from "../fixtures/totp"

type Jar = Record<string, string>
const SESSION = "authjs.session-token"

const hasSession = (res: request.Response) =>
  ((res.headers["set-cookie"] as unknown as string[] | undefined) ?? []).some(
    (l) => l.startsWith(`${SESSION}=`) && !/Max-Age=0/i.test(l),
  )

for (const strategy of ["jwt", "database"] as const) {
  describe(`T4 every first factor asks the second (${strategy} sessions)`, () => {
    let server: Server
    let origin: string
    let op: StartedOidcProvider
    let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
    const links: string[] = []
    const codes: string[] = []

    beforeAll(async () => {
      server = createServer((req, res) => handler(req, res))
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/op`] })
      const config: AuthConfig = {
        secret: SECRET,
        trustHost: true,
        adapter: MemoryAdapter(),
        session: { strategy },
        twoFactor: { issuer: "T4" },
        logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
        providers: [
          testOidcProvider(op, "op", { checks: ["pkce", "state", "nonce"] }),
          Email({
            code: true,
            sendVerificationRequest: ({ url, code }) => {
              links.push(url)
              codes.push(code!)
            },
          }),
        ],
      }
      const gatehouse = Gatehouse(config)
      const app = express()
      app.use(express.json())
      app.use("/auth", gatehouse.handlers)
      app.post("/2fa/enable", (req, res, next) => gatehouse.enableTotp(req, res).then((b) => res.json(b), next))
      app.post("/2fa/verify", (req, res, next) =>
        gatehouse.verifyTotpEnrolment(req, res, req.body).then((b) => res.json(b), next),
      )
      handler = app
    })
    afterAll(async () => {
      await op.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })

    async function csrf(jar: Jar) {
      const res = await request(server).get("/auth/csrf").set("Cookie", cookieHeader(jar))
      return { token: res.body.csrfToken as string, jar: cookieJar(jar, res.headers["set-cookie"]) }
    }

    async function oidcSignIn(login: string, jar: Jar = {}) {
      const c = await csrf(jar)
      const start = await request(server)
        .post("/auth/signin/op")
        .set("Cookie", cookieHeader(c.jar))
        .type("form")
        .send({ csrfToken: c.token, callbackUrl: "/dashboard" })
      const cookies = cookieJar(c.jar, start.headers["set-cookie"])
      const delivery = await driveAuthorization(start.headers.location!, `${origin}/auth/callback/`, { login })
      const callback = await request(server)
        .get(`${delivery.url.pathname}?${delivery.params}`)
        .set("Cookie", cookieHeader(cookies))
      return { callback, jar: cookieJar(cookies, callback.headers["set-cookie"]) }
    }

    async function emailLinkSignIn(email: string) {
      const c = await csrf({})
      await request(server)
        .post("/auth/signin/email")
        .set("Cookie", cookieHeader(c.jar))
        .type("form")
        .send({ csrfToken: c.token, email, callbackUrl: "/dashboard" })
      const link = new URL(links.at(-1)!)
      const page = await request(server).get(`${link.pathname}${link.search}`).set("Cookie", cookieHeader(c.jar))
      const jar = cookieJar(c.jar, page.headers["set-cookie"])
      const { action, fields } = confirmFormOf(page.text)
      const confirmed = await request(server)
        .post(new URL(action, origin).pathname)
        .set("Cookie", cookieHeader(jar))
        .type("form")
        .send(fields)
      return { callback: confirmed, jar: cookieJar(jar, confirmed.headers["set-cookie"]) }
    }

    async function secondStep(jar: Jar, code: string, backupCode?: string) {
      const c = await csrf(jar)
      const res = await request(server)
        .post("/auth/two-factor")
        .set("Cookie", cookieHeader(c.jar))
        .type("form")
        .send({ csrfToken: c.token, ...(backupCode ? { backupCode } : { code }) })
      return { res, jar: cookieJar(c.jar, res.headers["set-cookie"]) }
    }

    const sessionOf = async (jar: Jar) =>
      (await request(server).get("/auth/session").set("Cookie", cookieHeader(jar))).body as {
        user?: { email?: string }
      } | null

    it("T4 OIDC, email-link and email-code sign-ins of a TOTP user stop at /auth/two-factor; the code signs in that user", async () => {
      const login = `t4${strategy}`
      const email = `${login}@example.test`
      // The first OIDC sign-in creates the user (no two-factor yet); they enrol TOTP.
      const first = await oidcSignIn(login)
      expect(first.callback.headers.location).toBe(`${origin}/dashboard`)
      const enrol = await request(server).post("/2fa/enable").set("Cookie", cookieHeader(first.jar)).send({})
      const secret = enrol.body.secret as string
      const confirmed = await request(server)
        .post("/2fa/verify")
        .set("Cookie", cookieHeader(first.jar))
        .send({ code: totpNow(secret) })
      expect(confirmed.status).toBe(200)

      const oidc = await oidcSignIn(login)
      expect(oidc.callback.status).toBe(302)
      expect(oidc.callback.headers.location).toBe(`${origin}/auth/two-factor`)
      expect(hasSession(oidc.callback)).toBe(false)
      expect(await sessionOf(oidc.jar)).toBeNull()
      const oidcDone = await secondStep(oidc.jar, totpNow(secret, 1))
      expect(oidcDone.res.headers.location).toBe(`${origin}/dashboard`)
      expect((await sessionOf(oidcDone.jar))?.user?.email).toBe(email)

      // An email-link user (another one: an email proof replaces a never-verified OAuth user) enrols the same way.
      const linkEmail = `t4-link-${strategy}@example.test`
      const firstLink = await emailLinkSignIn(linkEmail)
      expect(firstLink.callback.headers.location).toBe(`${origin}/dashboard`)
      const linkEnrol = await request(server).post("/2fa/enable").set("Cookie", cookieHeader(firstLink.jar)).send({})
      const linkSecret = linkEnrol.body.secret as string
      const linkConfirmed = await request(server)
        .post("/2fa/verify")
        .set("Cookie", cookieHeader(firstLink.jar))
        .send({ code: totpNow(linkSecret) })
      expect(linkConfirmed.status).toBe(200)

      const link = await emailLinkSignIn(linkEmail)
      expect(link.callback.status).toBe(302)
      expect(link.callback.headers.location).toBe(`${origin}/auth/two-factor`)
      expect(hasSession(link.callback)).toBe(false)
      expect(await sessionOf(link.jar)).toBeNull()
      const linkDone = await secondStep(link.jar, "", linkConfirmed.body.backupCodes[0])
      expect(linkDone.res.headers.location).toBe(`${origin}/dashboard`)
      expect((await sessionOf(linkDone.jar))?.user?.email).toBe(linkEmail)

      // The email code, the third first factor of that user.
      const c = await csrf({})
      const sent = await request(server)
        .post("/auth/signin/email")
        .set("Cookie", cookieHeader(c.jar))
        .type("form")
        .send({ csrfToken: c.token, email: linkEmail, callbackUrl: "/dashboard" })
      const k = await csrf(cookieJar(c.jar, sent.headers["set-cookie"]))
      const byCode = await request(server)
        .post("/auth/callback/email")
        .set("Cookie", cookieHeader(k.jar))
        .type("form")
        .send({ csrfToken: k.token, code: codes.at(-1) })
      expect(byCode.headers.location).toBe(`${origin}/auth/two-factor`)
      expect(hasSession(byCode)).toBe(false)
      const codeJar = cookieJar(k.jar, byCode.headers["set-cookie"])
      expect(await sessionOf(codeJar)).toBeNull()
      const codeDone = await secondStep(codeJar, totpNow(linkSecret, 1))
      expect(codeDone.res.headers.location).toBe(`${origin}/dashboard`)
      expect((await sessionOf(codeDone.jar))?.user?.email).toBe(linkEmail)
    })
  })
}
