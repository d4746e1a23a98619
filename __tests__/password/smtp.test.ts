// The built-in emails over real SMTP (smtp-server in-process, nodemailer, mailparser): `server` and `from` on the
// provider, no hooks. The links are in the text and HTML parts, the typed address is not repeated in the body.
import { Gatehouse } from "../../lib/express"
import type { AuthConfig } from "../../lib/core/kernel/types"
import express from "express"
import Password from "../../lib/providers/password"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { confirmFormOf } from "../fixtures/magic-link"
import { Browser } from "./harness"

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())

describe("built-in emails over SMTP", () => {
  it("sends the confirmation, the reset and the changed notice", async () => {
    const adapter = MemoryAdapter()
    const instance = Gatehouse({
      secret: "smtp-password-secret-0123456789abcdef",
      trustHost: true,
      adapter,
      session: { strategy: "jwt" },
      logger: { error() {}, warn() {}, debug() {} },
      providers: [
        Password({
          server: smtp.url,
          from: "Gatehouse <no-reply@app.test>",
          requireEmailVerification: true,
          scrypt: { ln: 12, r: 8, p: 1 },
        }),
      ],
    } as AuthConfig)
    const app = express()
    app.use("/auth", instance.handlers)
    const server = app.listen(0, "127.0.0.1")
    await new Promise((resolve) => server.once("listening", resolve))
    try {
      const browser = new Browser(server)
      const signUp = await browser.form("/auth/signup", {
        email: "Smtp.User@Example.test",
        password: "smtp password 1",
      })
      expect(signUp.headers.location).toContain("/auth/verify-request")
      const confirm = await smtp.nextMessage()
      expect(confirm.envelope.rcptTo).toEqual(["smtp.user@example.test"])
      expect(confirm.subject).toContain("Confirm your email address")
      expect(confirm.text).toContain("If you did not ask for this, ignore this email.")
      const link = new URL(signInLinkOf(confirm))
      expect(link.pathname).toBe("/auth/verify-email")
      const page = await browser.get(`${link.pathname}${link.search}`)
      expect((await browser.form("/auth/verify-email", confirmFormOf(page.text).fields)).status).toBe(302)

      await browser.form("/auth/forgot-password", { email: "smtp.user@example.test" })
      const reset = await smtp.nextMessage()
      expect(reset.subject).toContain("Reset your password")
      expect(reset.text).toContain("30 minutes")
      const resetLink = new URL(signInLinkOf(reset))
      const done = await browser.form("/auth/reset-password", {
        token: resetLink.searchParams.get("token")!,
        email: "smtp.user@example.test",
        password: "smtp password 2",
      })
      expect(done.headers.location).toContain("/auth/signin?reset=1")
      const changed = await smtp.nextMessage()
      expect(changed.subject).toBe("Your password was changed")
      for (const message of [confirm, reset, changed]) expect(message.text).not.toContain("Smtp.User@Example.test")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
