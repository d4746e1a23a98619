// Account self-service (accounts.md §2, acceptance rows AC1, AC3-AC10, AC21): the overview without tokens, unlink
// with the last-credential rule, the email change with its two links, deletion (at once and confirmed by mail).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import request from "supertest"
import type { AccountEmail } from "../../lib/core/kernel/accounts/types"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { cookieHeader, followMailLink, harness, postJson } from "./harness"
import type { Harness } from "./harness"
import type { AuthConfig } from "../../lib/core/kernel/types"

const dir = mkdtempSync(join(tmpdir(), "gatehouse-accounts-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function withMail(overrides: Partial<AuthConfig> = {}, adapter?: Parameters<typeof harness>[1]) {
  const mails: AccountEmail[] = []
  const h = harness(
    {
      features: { accountRoutes: true },
      ...overrides,
      account: { sendEmail: (m) => void mails.push(m), ...(overrides.account ?? {}) },
    },
    adapter,
  )
  return { h, mails }
}

const tokens = { access_token: "at-SECRET-1", refresh_token: "rt-SECRET-2", id_token: "idt-SECRET-3" }

async function session(h: Harness, jar: Record<string, string>) {
  return (await request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))).body as {
    user?: { email?: string }
  } | null
}

describe("account self-service", () => {
  it("AC1 GET /auth/account lists the OIDC account with its three fields only, no token", async () => {
    const { h } = withMail()
    await h.addUser({ id: "ada", email: "ada@example.com", emailVerified: new Date() })
    await h.adapter.linkAccount({
      userId: "ada",
      type: "oidc",
      provider: "idp",
      providerAccountId: "ada-sub",
      ...tokens,
    })
    const jar = await h.signIn("ada")
    const res = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(res.status).toBe(200)
    expect(res.headers["cache-control"]).toContain("no-store")
    expect(res.body.accounts).toEqual([{ provider: "idp", type: "oidc", providerAccountId: "ada-sub" }])
    expect(res.body).toMatchObject({ userId: "ada", email: "ada@example.com", pendingEmail: null, methods: 1 })
    for (const forbidden of [...Object.values(tokens), "access_token", "refresh_token", "id_token"]) {
      expect(res.text).not.toContain(forbidden)
    }
    expect((await request(h.app).get("/auth/account")).status).toBe(401)
  })

  it("AC3 unlinking the only method is LastCredential; with a second OIDC account it goes", async () => {
    const { h } = withMail()
    await h.addUser({ id: "bea" })
    await h.adapter.linkAccount({ userId: "bea", type: "oidc", provider: "idp", providerAccountId: "b1" })
    const jar = await h.signIn("bea")
    const last = await postJson(h.app, jar, "/auth/account/unlink", { provider: "idp", providerAccountId: "b1" })
    expect([last.status, last.body]).toEqual([409, { error: "LastCredential" }])
    expect(await h.adapter.getAccount("b1", "idp")).not.toBeNull()
    await h.adapter.linkAccount({ userId: "bea", type: "oidc", provider: "idp2", providerAccountId: "b2" })
    const ok = await postJson(h.app, jar, "/auth/account/unlink", { provider: "idp", providerAccountId: "b1" })
    expect([ok.status, ok.body]).toEqual([200, { ok: true }])
    const overview = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(overview.body.accounts).toEqual([{ provider: "idp2", type: "oidc", providerAccountId: "b2" }])
    // Another user's account answers like a missing one; a missing field is InvalidRequest.
    await h.addUser({ id: "other" })
    await h.adapter.linkAccount({ userId: "other", type: "oidc", provider: "idp", providerAccountId: "o1" })
    const foreign = await postJson(h.app, jar, "/auth/account/unlink", { provider: "idp", providerAccountId: "o1" })
    expect([foreign.status, foreign.body]).toEqual([404, { error: "NotFound" }])
    const missing = await postJson(h.app, jar, "/auth/account/unlink", { provider: "idp" })
    expect([missing.status, missing.body]).toEqual([400, { error: "InvalidRequest" }])
    expect(h.events.filter((e) => e.type === "account.unlinked").map((e) => [e.userId, e.provider])).toEqual([
      ["bea", "idp"],
    ])
  })

  it("AC4 change email: two mails, nothing changes before the link, then the new address everywhere", async () => {
    const { h, mails } = withMail()
    await h.addUser({ id: "cy", email: "cy@example.com", emailVerified: null })
    const jar = await h.signIn("cy")
    const res = await postJson(h.app, jar, "/auth/account/email", { email: "cy.new@example.com" })
    expect([res.status, res.body]).toEqual([200, { ok: true }])
    expect(mails.map((m) => [m.type, m.to])).toEqual([
      ["email-change-verify", "cy.new@example.com"],
      ["email-change-notice", "cy@example.com"],
    ])
    expect(mails[1]!.newEmailMasked).toBe("c***@example.com")
    expect((await h.adapter.getUser("cy"))?.email).toBe("cy@example.com")
    const overview = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(overview.body.pendingEmail).toBe("cy.new@example.com")
    const { page, res: verified, jar: after } = await followMailLink(h.app, jar, mails[0]!.url)
    expect(page.headers["referrer-policy"]).toBe("no-referrer")
    expect(page.headers["cache-control"]).toContain("no-store")
    expect(verified.status).toBe(302)
    expect(verified.headers.location).not.toContain("error=")
    const stored = await h.adapter.getUser("cy")
    expect(stored?.email).toBe("cy.new@example.com")
    expect(stored?.emailVerified).toBeInstanceOf(Date)
    expect((await session(h, after))?.user?.email).toBe("cy.new@example.com")
    // The link works once.
    const again = await followMailLink(h.app, after, mails[0]!.url)
    expect(again.res.headers.location).toContain("error=Verification")
    expect(h.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["email.change_requested", "email.changed", "session.revoked"]),
    )
    const everything = JSON.stringify(h.events)
    for (const mail of mails) expect(everything).not.toContain(new URL(mail.url).searchParams.get("token")!)
    expect(everything).not.toContain("cy.new@example.com")
  })

  it("AC5 the old address's cancel link, then the verify link: nothing changes", async () => {
    const { h, mails } = withMail()
    await h.addUser({ id: "di", email: "di@example.com" })
    const jar = await h.signIn("di")
    await postJson(h.app, jar, "/auth/account/email", { email: "di.new@example.com" })
    const cancel = await followMailLink(h.app, {}, mails[1]!.url)
    expect(cancel.res.status).toBe(302)
    expect(cancel.res.headers.location).toBe(
      "http://127.0.0.1/auth/signin?info=EmailChangeCancelled".replace(
        "http://127.0.0.1",
        new URL(cancel.res.headers.location as string).origin,
      ),
    )
    const verify = await followMailLink(h.app, jar, mails[0]!.url)
    expect(verify.res.headers.location).toContain("error=Verification")
    expect((await h.adapter.getUser("di"))?.email).toBe("di@example.com")
  })

  it("AC6 another user's address (any case) is EmailInUse, a bad one InvalidEmail: no mail, nothing pending", async () => {
    const { h, mails } = withMail()
    await h.addUser({ id: "ed", email: "ed@example.com" })
    await h.addUser({ id: "fi", email: "fi@example.com" })
    const jar = await h.signIn("ed")
    for (const email of ["fi@example.com", "FI@EXAMPLE.COM"]) {
      const res = await postJson(h.app, jar, "/auth/account/email", { email })
      expect([res.status, res.body]).toEqual([409, { error: "EmailInUse" }])
    }
    for (const email of ["not-an-email", "a b@example.com", "ed@example.com", 42]) {
      const res = await postJson(h.app, jar, "/auth/account/email", { email })
      expect([res.status, res.body]).toEqual([400, { error: "InvalidEmail" }])
    }
    expect(mails).toEqual([])
    const overview = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect(overview.body.pendingEmail).toBeNull()
    const refused = h.events.filter((e) => e.type === "email.change_requested")
    expect(refused.map((e) => [e.outcome, e.reason])).toEqual([
      ["failure", "EmailInUse"],
      ["failure", "EmailInUse"],
    ])
  })

  it("AC7 a stale session (freshAge 2, 3.2 s later): change email and delete answer 403 SessionNotFresh", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"], now: Date.now() })
    try {
      const { h, mails } = withMail({ session: { strategy: "jwt", freshAge: 2 } })
      await h.addUser({ id: "gil", email: "gil@example.com" })
      const jar = await h.signIn("gil")
      expect((await postJson(h.app, jar, "/auth/account/email", { email: "gil2@example.com" })).status).toBe(200)
      jest.setSystemTime(Date.now() + 3200)
      for (const [path, body] of [
        ["/auth/account/email", { email: "gil3@example.com" }],
        ["/auth/account/delete", {}],
      ] as const) {
        const res = await postJson(h.app, jar, path, body)
        expect([res.status, res.body]).toEqual([403, { error: "SessionNotFresh" }])
      }
      expect(mails).toHaveLength(2)
      expect(await h.adapter.getUser("gil")).not.toBeNull()
    } finally {
      jest.useRealTimers()
    }
  })

  it("AC8 (SQLite, database sessions) delete: 0 rows of the user anywhere, another user intact, cookies read null", async () => {
    const file = join(dir, "ac8.sqlite")
    const { h } = withMail({ session: { strategy: "database" } }, SQLiteAdapter(file))
    await h.addUser({ id: "hal", email: "hal@example.com" })
    await h.addUser({ id: "ivy", email: "ivy@example.com" })
    await h.adapter.linkAccount({ userId: "hal", type: "oidc", provider: "idp", providerAccountId: "h1", ...tokens })
    await h.adapter.createAuthenticator({
      userId: "hal",
      providerAccountId: "cred-h",
      credentialID: "cred-h",
      credentialPublicKey: "pk",
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
    })
    await h.adapter.createVerificationToken({
      identifier: "Hal@Example.com",
      token: "t-h",
      expires: new Date(Date.now() + 60_000),
    })
    await h.adapter.createVerificationToken({
      identifier: "ivy@example.com",
      token: "t-i",
      expires: new Date(Date.now() + 60_000),
    })
    const first = await h.signIn("hal")
    const second = await h.signIn("hal")
    const ivy = await h.signIn("ivy")
    const res = await postJson(h.app, first, "/auth/account/delete", {})
    expect([res.status, res.body]).toEqual([200, { ok: true, deleted: true }])
    expect(String(res.headers["set-cookie"])).toMatch(
      /authjs\.session-token=;.*Max-Age=0|authjs\.session-token=;.*Expires=Thu, 01 Jan 1970/,
    )
    const db = new Database(file)
    const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n
    expect(count("SELECT count(*) n FROM users WHERE id = 'hal'")).toBe(0)
    expect(count("SELECT count(*) n FROM accounts WHERE user_id = 'hal'")).toBe(0)
    expect(count("SELECT count(*) n FROM sessions WHERE user_id = 'hal'")).toBe(0)
    expect(count("SELECT count(*) n FROM authenticators WHERE user_id = 'hal'")).toBe(0)
    expect(count("SELECT count(*) n FROM verification_tokens WHERE lower(identifier) = 'hal@example.com'")).toBe(0)
    expect(count("SELECT count(*) n FROM users WHERE id = 'ivy'")).toBe(1)
    expect(count("SELECT count(*) n FROM sessions WHERE user_id = 'ivy'")).toBe(1)
    expect(count("SELECT count(*) n FROM verification_tokens WHERE identifier = 'ivy@example.com'")).toBe(1)
    db.close()
    expect(await session(h, first)).toBeNull()
    expect(await session(h, second)).toBeNull()
    expect((await session(h, ivy))?.user?.email).toBe("ivy@example.com")
    expect(h.events.filter((e) => e.type === "account.deleted").map((e) => [e.userId, e.details])).toEqual([
      ["hal", { confirmed: false }],
    ])
  })

  it("AC9 JWT: delete, then the old cookie reads null; events.userDeleted fires once", async () => {
    const deleted: string[] = []
    const { h } = withMail({ events: { userDeleted: ({ user }) => void deleted.push(user.id) } })
    await h.addUser({ id: "jo", email: "jo@example.com" })
    const jar = await h.signIn("jo")
    expect((await postJson(h.app, jar, "/auth/account/delete", {})).body).toEqual({ ok: true, deleted: true })
    expect(await session(h, jar)).toBeNull()
    expect(deleted).toEqual(["jo"])
  })

  it("AC10 deleteConfirmation email: 202 pending, a delete-confirm mail, its link deletes and the cookie reads null", async () => {
    const { h, mails } = withMail({ account: { deleteConfirmation: "email" } })
    await h.addUser({ id: "kim", email: "kim@example.com" })
    const jar = await h.signIn("kim")
    const res = await postJson(h.app, jar, "/auth/account/delete", {})
    expect([res.status, res.body]).toEqual([202, { ok: true, pending: true }])
    expect(await h.adapter.getUser("kim")).not.toBeNull()
    expect(mails.map((m) => [m.type, m.to])).toEqual([["delete-confirm", "kim@example.com"]])
    const { res: confirmed } = await followMailLink(h.app, jar, mails[0]!.url)
    expect(confirmed.status).toBe(302)
    expect(await h.adapter.getUser("kim")).toBeNull()
    expect(await session(h, jar)).toBeNull()
    const replay = await followMailLink(h.app, {}, mails[0]!.url)
    expect(replay.res.headers.location).toContain("error=Verification")
    expect(h.events.find((e) => e.type === "account.deleted")?.details).toEqual({ confirmed: true })
  })

  it("AC21 POST /auth/account/email without csrfToken: 403 MissingCSRF, nothing changed", async () => {
    const { h, mails } = withMail()
    await h.addUser({ id: "lu", email: "lu@example.com" })
    const jar = await h.signIn("lu")
    const res = await postJson(h.app, jar, "/auth/account/email", { email: "lu2@example.com" }, { csrf: false })
    expect([res.status, res.body]).toEqual([403, { error: "MissingCSRF" }])
    expect(mails).toEqual([])
  })

  it("the JSON routes are not Gatehouse's without features.accountRoutes; the mail links still are", async () => {
    const h = harness({ account: {} })
    await h.addUser({ id: "mo" })
    const jar = await h.signIn("mo")
    const res = await request(h.app).get("/auth/account").set("Cookie", cookieHeader(jar))
    expect([res.status, res.body]).toEqual([400, "Bad request."])
    const page = await request(h.app).get("/auth/account/verify-email?token=x")
    expect(page.status).toBe(200)
    expect(page.text).toContain("Confirm your new email address")
  })
})
