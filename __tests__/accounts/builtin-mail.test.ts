// The account mails without `account.sendEmail` (accounts.md §2.7): the built-in templates over the first email
// provider's nodemailer transport, else the Password provider's, on a real SMTP server (smtp-server, mailparser).
import request from "supertest"
import { Gatehouse } from "../../lib"
import Credentials from "../../lib/providers/credentials"
import Nodemailer from "../../lib/providers/nodemailer"
import Password from "../../lib/providers/password"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"
import { PASSWORD, cookieHeader, followMailLink, harness, postJson } from "./harness"

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp.stop())
beforeEach(() => smtp.clear())

function app(transport: "nodemailer" | "password", account: AuthConfig["account"] = {}) {
  const adapter = MemoryAdapter()
  const credentials = Credentials({
    credentials: { username: {}, password: {} },
    authorize: async (c) =>
      c.password === PASSWORD && typeof c.username === "string" ? await adapter.getUser(c.username) : null,
  })
  const mailer =
    transport === "nodemailer"
      ? Nodemailer({ server: smtp.url, from: "Accounts <no-reply@app.test>" })
      : Password({ server: smtp.url, from: "Accounts <no-reply@app.test>", scrypt: { ln: 12, r: 8, p: 1 } })
  return harness({ providers: [credentials, mailer], features: { accountRoutes: true }, account }, adapter)
}

describe("account mails without account.sendEmail", () => {
  it('deleteConfirmation "email" with only a Nodemailer provider: the delete-confirm mail goes over SMTP and its link deletes', async () => {
    const h = app("nodemailer", { deleteConfirmation: "email" })
    await h.addUser({ id: "kim", email: "kim@example.test" })
    const jar = await h.signIn("kim")
    const res = await postJson(h.app, jar, "/auth/account/delete", {})
    expect([res.status, res.body]).toEqual([202, { ok: true, pending: true }])
    const mail = await smtp.nextMessage()
    expect(mail.envelope.rcptTo).toEqual(["kim@example.test"])
    const link = new URL(signInLinkOf(mail))
    expect(mail.subject).toBe(`Confirm deleting your account at ${link.host}`)
    expect(link.pathname).toBe("/auth/account/confirm-delete")
    expect(await h.adapter.getUser("kim")).not.toBeNull()
    const { res: confirmed } = await followMailLink(h.app, jar, link.href)
    expect(confirmed.status).toBe(302)
    expect(await h.adapter.getUser("kim")).toBeNull()
    const session = await request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))
    expect(session.body).toBeNull()
  })

  it("changeEmail with only a Nodemailer provider: the verify mail to the new address, the masked notice to the old", async () => {
    const h = app("nodemailer")
    await h.addUser({ id: "ada", email: "ada@example.test" })
    const jar = await h.signIn("ada")
    const res = await postJson(h.app, jar, "/auth/account/email", { email: "ada.new@example.test" })
    expect([res.status, res.body]).toEqual([200, { ok: true }])
    const first = await smtp.nextMessage()
    const second = await smtp.nextMessage()
    const byRecipient = Object.fromEntries([first, second].map((m) => [m.envelope.rcptTo[0], m]))
    const verify = byRecipient["ada.new@example.test"]!
    const notice = byRecipient["ada@example.test"]!
    expect(new URL(signInLinkOf(verify)).pathname).toBe("/auth/account/verify-email")
    expect(new URL(signInLinkOf(notice)).pathname).toBe("/auth/account/cancel-email")
    expect(notice.text).toContain("a***@example.test")
    expect(notice.text).not.toContain("ada.new@example.test")
    await followMailLink(h.app, jar, signInLinkOf(verify))
    expect((await h.adapter.getUser("ada"))?.email).toBe("ada.new@example.test")
  })

  it('deleteConfirmation "email" with only the Password provider\'s server: the mail goes through it', async () => {
    const h = app("password", { deleteConfirmation: "email" })
    await h.addUser({ id: "lee", email: "lee@example.test" })
    const jar = await h.signIn("lee")
    expect((await postJson(h.app, jar, "/auth/account/delete", {})).status).toBe(202)
    const mail = await smtp.nextMessage()
    expect(mail.envelope.rcptTo).toEqual(["lee@example.test"])
    expect(new URL(signInLinkOf(mail)).pathname).toBe("/auth/account/confirm-delete")
  })

  it("an app's own sendEmail wins over the provider's transport", async () => {
    const sent: string[] = []
    const h = app("nodemailer", { deleteConfirmation: "email", sendEmail: (m) => void sent.push(m.type) })
    await h.addUser({ id: "mo", email: "mo@example.test" })
    const jar = await h.signIn("mo")
    expect((await postJson(h.app, jar, "/auth/account/delete", {})).status).toBe(202)
    expect(sent).toEqual(["delete-confirm"])
    expect(smtp.messages).toHaveLength(0)
  })

  it('without sendEmail and without a transport: deleteConfirmation "email" fails at construction, changeEmail throws InvalidConfig', async () => {
    expect(() =>
      Gatehouse({
        secret: "s".repeat(32),
        adapter: MemoryAdapter(),
        providers: [],
        account: { deleteConfirmation: "email" },
      }),
    ).toThrow(expect.objectContaining({ type: "InvalidConfig" }))
    const h = harness({ features: { accountRoutes: true }, account: {} })
    await h.addUser({ id: "no", email: "no@example.test" })
    const jar = await h.signIn("no")
    const res = await postJson(h.app, jar, "/auth/account/email", { email: "no2@example.test" })
    expect([res.status, res.body]).toEqual([400, { error: "InvalidConfig" }])
    const overview = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(overview.body.pendingEmail).toBeNull()
  })
})
