// The account and admin rate-limit rules (accounts.md §7), each where the spec applies it: account-email-change
// (always on), account-delete (with deleteConfirmation "email"), account-link, account-link-confirm (the POSTs of the
// three mail links, by IP) and admin. Each refusal is 429 {"error":"RateLimited"} with Retry-After; nothing changes.
import request from "supertest"
import Credentials from "../../lib/providers/credentials"
import GitHub from "../../lib/providers/github"
import type { AccountEmail } from "../../lib/core/kernel/accounts/types"
import type { AuthConfig } from "../../lib/core/kernel/types"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { PASSWORD, cookieHeader, cookieJar, harness, postJson } from "./harness"

type Rules = NonNullable<NonNullable<AuthConfig["rateLimit"]>["rules"]>

function withMail(rules: Rules, overrides: Partial<AuthConfig> = {}, enabled = true, adapter = MemoryAdapter()) {
  const mails: AccountEmail[] = []
  const h = harness(
    {
      features: { accountRoutes: true, adminRoutes: true },
      rateLimit: { enabled, rules },
      ...overrides,
      account: { sendEmail: (m) => void mails.push(m), ...(overrides.account ?? {}) },
    },
    adapter,
  )
  return { h, mails }
}

const refusedLike = (res: request.Response) => {
  expect([res.status, res.body]).toEqual([429, { error: "RateLimited" }])
  expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1)
}

describe("accounts.md §7 rate-limit rules", () => {
  it("account-email-change: the 6th change within the hour is refused even with the limiter off, and sends nothing", async () => {
    const { h, mails } = withMail({}, {}, false)
    await h.addUser({ id: "ann", email: "ann@example.com" })
    const jar = await h.signIn("ann")
    for (let i = 0; i < 5; i++) {
      expect((await postJson(h.app, jar, "/auth/account/email", { email: `ann${i}@example.com` })).status).toBe(200)
    }
    refusedLike(await postJson(h.app, jar, "/auth/account/email", { email: "ann9@example.com" }))
    expect(mails).toHaveLength(10)
    const overview = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(overview.body.pendingEmail).toBe("ann4@example.com")
  })

  it('account-delete: with deleteConfirmation "email" the request past the limit is refused and mails nothing', async () => {
    const { h, mails } = withMail(
      { "account-delete": { limit: 2, window: 3600 } },
      { account: { deleteConfirmation: "email" } },
    )
    await h.addUser({ id: "bea", email: "bea@example.com" })
    const jar = await h.signIn("bea")
    for (let i = 0; i < 2; i++) expect((await postJson(h.app, jar, "/auth/account/delete", {})).status).toBe(202)
    refusedLike(await postJson(h.app, jar, "/auth/account/delete", {}))
    expect(mails.map((m) => m.type)).toEqual(["delete-confirm", "delete-confirm"])
    expect(await h.adapter.getUser("bea")).not.toBeNull()
  })

  it("account-delete does not count with the limiter off", async () => {
    const { h, mails } = withMail(
      { "account-delete": { limit: 1, window: 3600 } },
      { account: { deleteConfirmation: "email" } },
      false,
    )
    await h.addUser({ id: "cy", email: "cy@example.com" })
    const jar = await h.signIn("cy")
    for (let i = 0; i < 3; i++) expect((await postJson(h.app, jar, "/auth/account/delete", {})).status).toBe(202)
    expect(mails).toHaveLength(3)
  })

  it("account-link: the link start past the limit is refused, per user", async () => {
    const adapter = MemoryAdapter()
    const { h } = withMail(
      { "account-link": { limit: 2, window: 600 } },
      {
        providers: [
          Credentials({
            credentials: { username: {}, password: {} },
            authorize: async (c) => (c.password === PASSWORD ? adapter.getUser(String(c.username)) : null),
          }),
          GitHub({ clientId: "id", clientSecret: "secret" }),
        ],
      },
      true,
      adapter,
    )
    await h.addUser({ id: "dee" })
    await h.addUser({ id: "eve" })
    const dee = await h.signIn("dee")
    for (let i = 0; i < 2; i++) {
      const res = await postJson(h.app, dee, "/auth/account/link", { provider: "github" })
      expect([res.status, new URL(res.body.url).host]).toEqual([200, "github.com"])
    }
    refusedLike(await postJson(h.app, dee, "/auth/account/link", { provider: "github" }))
    const eve = await h.signIn("eve")
    expect((await postJson(h.app, eve, "/auth/account/link", { provider: "github" })).status).toBe(200)
  })

  it("account-link-confirm: the POSTs of the three mail links count by IP; GETs do not; another IP is not refused", async () => {
    const { h } = withMail({ "account-link-confirm": { limit: 3, window: 600 } })
    const csrf = await request(h.app).get("/auth/csrf")
    const jar = cookieJar({}, csrf.headers["set-cookie"])
    const post = (page: string, ip: string) =>
      request(h.app)
        .post(`/auth/account/${page}`)
        .set("X-Forwarded-For", ip)
        .set("Cookie", cookieHeader(jar))
        .type("form")
        .send({ token: "not-a-token", csrfToken: csrf.body.csrfToken })
    const page = await request(h.app).get("/auth/account/verify-email?token=x").set("X-Forwarded-For", "203.0.113.7")
    expect(page.status).toBe(200)
    for (const path of ["verify-email", "cancel-email", "confirm-delete"]) {
      const res = await post(path, "203.0.113.7")
      expect([res.status, res.headers.location]).toEqual([302, expect.stringContaining("error=Verification")])
    }
    refusedLike(await post("verify-email", "203.0.113.7"))
    refusedLike(await post("confirm-delete", "203.0.113.7"))
    expect((await post("verify-email", "198.51.100.9")).status).toBe(302)
  })

  it("admin: admin calls past the limit are refused, counted by the admin's id", async () => {
    const { h } = withMail({ admin: { limit: 2, window: 60 } })
    await h.addUser({ id: "root", role: "admin" })
    const jar = await h.signIn("root")
    for (let i = 0; i < 2; i++) {
      expect((await request(h.app).get("/auth/admin/users").set("Cookie", cookieHeader(jar))).status).toBe(200)
    }
    refusedLike(await request(h.app).get("/auth/admin/user?id=root").set("Cookie", cookieHeader(jar)))
  })
})
