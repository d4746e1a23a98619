// Administration (accounts.md §3, acceptance rows AC11-AC14, AC17 for its acts, AC21): who is an admin, listing with
// the cursor, ban (total and silent) and unban, roles, session revocation, the audit listing.
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib"
import { Gatehouse as WebGatehouse } from "../../lib/web"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import Credentials from "../../lib/providers/credentials"
import { SECRET } from "../express/apps"
import { PASSWORD, cookieHeader, harness, postJson } from "./harness"
import type { Harness } from "./harness"
import type { AuthConfig } from "../../lib/core/kernel/types"
import Email from "../../lib/providers/email"
import { confirmFormOf } from "../fixtures/magic-link"
import { cookieJar } from "./harness"

const ADMIN_ROUTES: Array<["GET" | "POST", string, Record<string, unknown>]> = [
  ["GET", "/auth/admin/users", {}],
  ["GET", "/auth/admin/user?id=bob", {}],
  ["POST", "/auth/admin/ban", { id: "bob" }],
  ["POST", "/auth/admin/unban", { id: "bob" }],
  ["POST", "/auth/admin/role", { id: "bob", role: "admin" }],
  ["POST", "/auth/admin/revoke-sessions", { id: "bob" }],
  ["GET", "/auth/admin/audit", {}],
]

async function setup(overrides: Partial<AuthConfig> = {}): Promise<Harness> {
  const h = harness({ features: { adminRoutes: true, accountRoutes: true }, admin: {}, ...overrides })
  await h.addUser({ id: "root", email: "root@example.com", role: "admin" })
  await h.addUser({ id: "bob", email: "bob@example.com" })
  await h.addUser({ id: "cat", email: "cat@example.com" })
  return h
}

async function call(h: Harness, jar: Record<string, string>, method: "GET" | "POST", path: string, body = {}) {
  return method === "GET"
    ? request(h.app).get(path).set("Cookie", cookieHeader(jar)).set("Accept", "application/json")
    : postJson(h.app, jar, path, body)
}

describe("administration", () => {
  it("AC0 both flavours have the admin members", () => {
    const config = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      admin: {},
      providers: [Credentials({ authorize: () => null })],
    }
    for (const instance of [Gatehouse(config), WebGatehouse(config)]) {
      for (const member of [
        "listUsers",
        "getUser",
        "banUser",
        "unbanUser",
        "setRole",
        "adminRevokeSessions",
        "listAuditEvents",
        "listAccounts",
        "unlinkAccount",
        "changeEmail",
        "deleteAccount",
      ]) {
        expect(typeof (instance as unknown as Record<string, unknown>)[member]).toBe("function")
      }
    }
  })

  it("AC11 a non-admin gets 403 AdminRequired on every route, no session 401; the target is untouched", async () => {
    const h = await setup()
    const cat = await h.signIn("cat")
    for (const [method, path, body] of ADMIN_ROUTES) {
      const res = await call(h, cat, method, path, body)
      expect([path, res.status, res.body]).toEqual([path, 403, { error: "AdminRequired" }])
      const anonymous = await call(h, {}, method, path, body)
      expect([path, anonymous.status, anonymous.body]).toEqual([path, 401, { error: "Unauthorized" }])
    }
    expect((await h.adapter.getUser("bob"))?.banned).toBeUndefined()
    const app = express()
    app.get("/list", (req, res) => {
      h.gatehouse.listUsers(req, res).then(
        () => res.json({ ok: true }),
        (error: { type?: string; status?: number }) => res.json({ type: error.type, status: error.status }),
      )
    })
    expect((await request(app).get("/list").set("Cookie", cookieHeader(cat))).body).toEqual({
      type: "AdminRequired",
      status: 403,
    })
    const denied = h.events.filter((e) => e.type === "admin.denied")
    expect(denied.length).toBeGreaterThanOrEqual(ADMIN_ROUTES.length)
    expect(denied[0]).toMatchObject({ userId: "cat", outcome: "failure", reason: "AdminRequired" })
  })

  it("AC12 the admin walks /admin/users with limit=2 and the cursor: everyone once, in email order; search", async () => {
    const h = await setup()
    await h.addUser({ id: "ann", email: "Ann@example.com" })
    const root = await h.signIn("root")
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const res: request.Response = await call(
        h,
        root,
        "GET",
        `/auth/admin/users?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      )
      expect(res.status).toBe(200)
      expect(res.body.users.length).toBeLessThanOrEqual(2)
      seen.push(...res.body.users.map((u: { id: string }) => u.id))
      cursor = res.body.nextCursor
    } while (cursor)
    expect(seen).toEqual(["ann", "bob", "cat", "root"])
    const search = await call(h, root, "GET", "/auth/admin/users?search=BO")
    expect(search.body.users.map((u: { id: string }) => u.id)).toEqual(["bob"])
    expect(search.body.nextCursor).toBeNull()
    expect((await call(h, root, "GET", "/auth/admin/users?limit=101")).body).toEqual({ error: "InvalidRequest" })
    expect((await call(h, root, "GET", "/auth/admin/users?cursor=%25%25")).body).toEqual({ error: "InvalidRequest" })
    const detail = await call(h, root, "GET", "/auth/admin/user?id=bob")
    expect(detail.body).toMatchObject({
      id: "bob",
      email: "bob@example.com",
      banned: false,
      accounts: [],
      sessions: null,
    })
    expect((await call(h, root, "GET", "/auth/admin/user?id=nobody")).body).toEqual({ error: "NotFound" })
  })

  it("AC13 AC14 ban: live sessions read null at once; every credentials sign-in refused without the reason; unban", async () => {
    const h = await setup()
    const root = await h.signIn("root")
    const bob = await h.signIn("bob")
    const ban = await call(h, root, "POST", "/auth/admin/ban", { id: "bob", reason: "r-secret" })
    expect(ban.status).toBe(200)
    expect(ban.body).toMatchObject({ id: "bob", banned: true, banReason: "r-secret" })
    expect((await request(h.app).get("/auth/session").set("Cookie", cookieHeader(bob))).body).toBeNull()
    const csrf = await request(h.app).get("/auth/csrf")
    const attempt = await request(h.app)
      .post("/auth/callback/credentials")
      .set("Cookie", String(csrf.headers["set-cookie"]).split(";")[0]!)
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, username: "bob", password: PASSWORD })
    expect(attempt.status).toBe(302)
    expect(attempt.headers.location).toMatch(/\/auth\/signin\?error=AccountBanned$/)
    expect(String(attempt.headers["set-cookie"] ?? "")).not.toContain("authjs.session-token=e")
    expect(JSON.stringify(attempt.headers) + attempt.text).not.toContain("r-secret")
    expect((await call(h, root, "POST", "/auth/admin/ban", { id: "root" })).body).toEqual({ error: "InvalidTarget" })
    await h.addUser({ id: "boss", email: "boss@example.com", role: "admin" })
    expect((await call(h, root, "POST", "/auth/admin/ban", { id: "boss" })).body).toEqual({ error: "AdminTarget" })
    expect((await call(h, root, "POST", "/auth/admin/unban", { id: "bob" })).body).toMatchObject({ banned: false })
    await expect(h.signIn("bob")).resolves.toHaveProperty(["authjs.session-token"])
    const types = h.events.map((e) => e.type)
    expect(types).toEqual(expect.arrayContaining(["user.banned", "user.unbanned", "session.revoked"]))
    expect(h.events.find((e) => e.type === "user.banned")).toMatchObject({ userId: "bob", actorId: "root" })
    const refused = h.events.find((e) => e.type === "signin" && e.reason === "AccountBanned")
    expect(refused?.outcome).toBe("failure")
  })

  it("AC14 email: a banned address gets the usual answer and no mail; a link mailed before the ban is refused", async () => {
    const adapter = MemoryAdapter()
    const sent: Array<{ url: string }> = []
    const h = harness(
      {
        features: { adminRoutes: true },
        admin: {},
        providers: [
          Credentials({
            credentials: { username: {}, password: {} },
            authorize: async (c) => (c.password === PASSWORD ? await adapter.getUser(String(c.username)) : null),
          }),
          Email({ sendVerificationRequest: (params) => void sent.push(params) }),
        ],
      },
      adapter,
    )
    await h.addUser({ id: "root", email: "root@example.com", role: "admin" })
    await h.addUser({ id: "bob", email: "bob@example.com", emailVerified: new Date() })
    const request_ = async (email: string) => {
      const csrf = await request(h.app).get("/auth/csrf")
      return request(h.app)
        .post("/auth/signin/email")
        .set("Cookie", String(csrf.headers["set-cookie"]).split(";")[0]!)
        .type("form")
        .send({ csrfToken: csrf.body.csrfToken, email })
    }
    expect((await request_("bob@example.com")).status).toBe(302)
    expect(sent).toHaveLength(1)
    const root = await h.signIn("root")
    expect((await call(h, root, "POST", "/auth/admin/ban", { id: "bob", reason: "r-secret" })).status).toBe(200)
    const banned = await request_("bob@example.com")
    const other = await request_("nobody@example.com")
    expect(banned.status).toBe(other.status)
    expect(new URL(banned.headers.location as string).pathname).toBe(new URL(other.headers.location as string).pathname)
    expect(sent).toHaveLength(2) // only nobody@example.com's
    const link = new URL(sent[0]!.url)
    const page = await request(h.app).get(`${link.pathname}${link.search}`)
    const { action, fields } = confirmFormOf(page.text)
    const jar = cookieJar({}, page.headers["set-cookie"])
    const callback = await request(h.app)
      .post(new URL(action, link).pathname)
      .set("Cookie", cookieHeader(jar))
      .type("form")
      .send(fields)
    expect(callback.status).toBe(302)
    expect(callback.headers.location).toContain("error=AccountBanned")
    expect(String(callback.headers["set-cookie"] ?? "")).not.toMatch(/authjs\.session-token=[^;]/)
    expect(JSON.stringify(callback.headers)).not.toContain("r-secret")
  })

  it("a ban that has expired no longer blocks; the next sign-in clears it (user.unbanned, reason expired)", async () => {
    const h = await setup()
    await h.adapter.updateUser({ id: "bob", banned: true, banReason: "old", banExpires: new Date(Date.now() - 1000) })
    await h.signIn("bob")
    expect(await h.adapter.getUser("bob")).toMatchObject({ banned: false, banReason: null, banExpires: null })
    expect(h.events.find((e) => e.type === "user.unbanned")).toMatchObject({ reason: "expired", actorId: null })
  })

  it("roles: set, clear, refuse a bad one and your own; the role is re-read on every call (demotion works at once)", async () => {
    const h = await setup()
    const root = await h.signIn("root")
    expect((await call(h, root, "POST", "/auth/admin/role", { id: "bob", role: "Bad Role" })).body).toEqual({
      error: "InvalidRole",
    })
    expect((await call(h, root, "POST", "/auth/admin/role", { id: "root", role: null })).body).toEqual({
      error: "InvalidTarget",
    })
    expect((await call(h, root, "POST", "/auth/admin/role", { id: "bob", role: "admin" })).body).toMatchObject({
      role: "admin",
    })
    const bob = await h.signIn("bob")
    expect((await call(h, bob, "GET", "/auth/admin/users")).status).toBe(200)
    await call(h, root, "POST", "/auth/admin/role", { id: "bob", role: null })
    expect((await call(h, bob, "GET", "/auth/admin/users")).body).toEqual({ error: "AdminRequired" })
    expect(h.events.filter((e) => e.type === "user.role_changed").map((e) => e.details)).toEqual([
      { from: null, to: "admin" },
      { from: "admin", to: null },
    ])
  })

  it("AC17 the admin's audit listing pages with limit=2 without repeating; type filter; unknown type refused", async () => {
    const h = await setup()
    const root = await h.signIn("root")
    await h.signIn("bob")
    await call(h, root, "POST", "/auth/admin/revoke-sessions", { id: "bob" })
    const ids: string[] = []
    let cursor: string | null = null
    do {
      const res: request.Response = await call(
        h,
        root,
        "GET",
        `/auth/admin/audit?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      )
      expect(res.status).toBe(200)
      ids.push(...res.body.events.map((e: { id: string }) => e.id))
      cursor = res.body.nextCursor
    } while (cursor)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBeGreaterThanOrEqual(3)
    const signins = await call(h, root, "GET", "/auth/admin/audit?type=signin&userId=bob")
    expect(signins.body.events.map((e: { type: string; userId: string }) => [e.type, e.userId])).toEqual([
      ["signin", "bob"],
    ])
    expect((await call(h, root, "GET", "/auth/admin/audit?type=nope")).body).toEqual({ error: "InvalidRequest" })
    const revoked = h.events.find((e) => e.type === "session.revoked")
    expect(revoked).toMatchObject({ userId: "bob", actorId: "root", reason: "admin" })
  })

  it("AC21 POST /auth/admin/ban without csrfToken: 403 MissingCSRF, nothing changed", async () => {
    const h = await setup()
    const root = await h.signIn("root")
    const res = await postJson(h.app, root, "/auth/admin/ban", { id: "bob" }, { csrf: false })
    expect([res.status, res.body]).toEqual([403, { error: "MissingCSRF" }])
    expect((await h.adapter.getUser("bob"))?.banned).toBeUndefined()
  })

  it("the admin routes are not Gatehouse's without features.adminRoutes", async () => {
    const h = harness({ admin: {} })
    await h.addUser({ id: "root", role: "admin" })
    const root = await h.signIn("root")
    const res = await call(h, root, "GET", "/auth/admin/users")
    expect([res.status, res.body]).toEqual([400, "Bad request."])
  })
})
