// What the sessions carry once an email change is applied (accounts.md §2.5 step 5.7): the browser that used the
// verify link keeps its session, re-issued with the new address (JWT: the `email` claim rewritten and the `jwt`
// callback run with trigger "update" and session {user: {email}}); every other session of the user is revoked, so
// none goes on showing the old address.
import request from "supertest"
import type { AccountEmail } from "../../lib/core/kernel/accounts/types"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { cookieHeader, followMailLink, harness, postJson } from "./harness"

function app(overrides: Partial<AuthConfig> = {}) {
  const mails: AccountEmail[] = []
  const h = harness({
    features: { accountRoutes: true },
    account: { sendEmail: (m) => void mails.push(m) },
    ...overrides,
  })
  return { h, mails }
}

const sessionOf = async (h: ReturnType<typeof harness>, jar: Record<string, string>) =>
  (await request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))).body as Record<string, unknown> | null

async function changeAndVerify(h: ReturnType<typeof harness>, mails: AccountEmail[], jar: Record<string, string>) {
  expect((await postJson(h.app, jar, "/auth/account/email", { email: "dora.new@example.com" })).status).toBe(200)
  const verify = mails.find((m) => m.type === "email-change-verify")!
  const { res, jar: after } = await followMailLink(h.app, jar, verify.url)
  expect([res.status, String(res.headers.location).includes("error=")]).toEqual([302, false])
  return after
}

describe("sessions after an applied email change", () => {
  it('JWT: the jwt callback runs with trigger "update" and the new email, so claims derived from it follow', async () => {
    const updates: unknown[] = []
    const { h, mails } = app({
      callbacks: {
        jwt: ({ token, trigger, session }) => {
          if (trigger === "update") updates.push(session)
          return { ...token, contact: `mailto:${String(token.email)}` }
        },
        session: ({ session, token }) => ({ ...session, contact: token.contact }),
      },
    })
    await h.addUser({ id: "dora", email: "dora@example.com", name: "Dora" })
    const jar = await h.signIn("dora")
    const elsewhere = await h.signIn("dora", { userAgent: "Other/1.0" })
    expect((await sessionOf(h, jar))?.contact).toBe("mailto:dora@example.com")
    const after = await changeAndVerify(h, mails, jar)
    expect(updates).toEqual([{ user: { email: "dora.new@example.com" } }])
    const session = await sessionOf(h, after)
    expect(session).toMatchObject({ user: { email: "dora.new@example.com" }, contact: "mailto:dora.new@example.com" })
    expect(await sessionOf(h, elsewhere)).toBeNull()
  })

  it("JWT: a jwt callback that answers null to the update ends the browser's session too", async () => {
    const { h, mails } = app({
      callbacks: { jwt: ({ token, trigger }) => (trigger === "update" ? null : token) },
    })
    await h.addUser({ id: "dora", email: "dora@example.com" })
    const jar = await h.signIn("dora")
    const after = await changeAndVerify(h, mails, jar)
    expect(await sessionOf(h, after)).toBeNull()
    expect((await h.adapter.getUser("dora"))?.email).toBe("dora.new@example.com")
  })

  it("database: the verifying browser's session shows the new address at once; the user's other sessions are gone", async () => {
    const { h, mails } = app({ session: { strategy: "database" } })
    await h.addUser({ id: "dora", email: "dora@example.com" })
    const jar = await h.signIn("dora")
    const elsewhere = await h.signIn("dora", { userAgent: "Other/1.0" })
    const after = await changeAndVerify(h, mails, jar)
    expect((await sessionOf(h, after))?.user).toMatchObject({ email: "dora.new@example.com" })
    expect(await sessionOf(h, elsewhere)).toBeNull()
    expect(await h.adapter.listSessionsByUserId("dora")).toHaveLength(1)
  })
})
