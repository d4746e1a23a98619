// The audit trail (accounts.md §4, acceptance rows AC17-AC20 for the acts that exist today): one event per act with
// its type, user, provider and outcome; never a secret; the user's own feed; a failing sink never breaks a sign-in;
// retention.
import express from "express"
import request from "supertest"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { SQLiteAdapter } from "../../lib/storage/sqlite/adapter"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { InvalidConfig, MissingAdapterMethods } from "../../lib/errors"
import { Gatehouse } from "../../lib"
import { Gatehouse as WebGatehouse } from "../../lib/web"
import Credentials from "../../lib/providers/credentials"
import { SECRET } from "../express/apps"
import { PASSWORD, cookieHeader, harness, settle } from "./harness"

const dir = mkdtempSync(join(tmpdir(), "gatehouse-audit-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function signOut(app: express.Express, jar: Record<string, string>) {
  const csrf = await request(app).get("/auth/csrf").set("Cookie", cookieHeader(jar))
  const csrfJar = { ...jar }
  for (const line of [csrf.headers["set-cookie"] ?? []].flat()) {
    const [pair] = String(line).split(";")
    const eq = pair!.indexOf("=")
    csrfJar[pair!.slice(0, eq)] = pair!.slice(eq + 1)
  }
  return request(app)
    .post("/auth/signout")
    .set("Cookie", cookieHeader(csrfJar))
    .type("form")
    .send({ csrfToken: csrf.body.csrfToken })
}

describe("audit trail", () => {
  it("AC0 both flavours have pruneAuditEvents and listMyAuditEvents", () => {
    const config = {
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      providers: [Credentials({ authorize: () => null })],
    }
    for (const instance of [Gatehouse(config), WebGatehouse(config)]) {
      expect(typeof instance.pruneAuditEvents).toBe("function")
      expect(typeof instance.listMyAuditEvents).toBe("function")
    }
  })

  it("AC17 (SQLite) a failed sign-in, a sign-in and a sign-out write one event each, matching the stored rows", async () => {
    const file = join(dir, "ac17.sqlite")
    const h = harness({ session: { strategy: "jwt", storeIp: "truncate" } }, SQLiteAdapter(file))
    await h.addUser({ id: "alice", email: "alice@example.com" })
    const csrf = await request(h.app).get("/auth/csrf")
    const failed = await request(h.app)
      .post("/auth/callback/credentials")
      .set("Cookie", String(csrf.headers["set-cookie"]).split(";")[0]!)
      .set("X-Forwarded-For", "203.0.113.9")
      .type("form")
      .send({ csrfToken: csrf.body.csrfToken, username: "alice@example.com", password: "not-the-password" })
    expect(failed.headers.location).toContain("error=CredentialsSignin")
    const jar = await h.signIn("alice", { userAgent: "Phone/2.0" })
    expect((await signOut(h.app, jar)).status).toBe(302)
    await settle()

    expect(h.events.map((e) => [e.type, e.userId, e.provider, e.outcome, e.reason])).toEqual([
      ["signin", null, "credentials", "failure", "CredentialsSignin"],
      ["signin", "alice", "credentials", "success", null],
      ["signout", "alice", null, "success", null],
    ])
    expect(h.events[0]!.ip).toBe("203.0.113.0/24")
    expect(h.events[1]!.userAgent).toBe("Phone/2.0")
    expect(h.events[1]!.details).toEqual({ newUser: false })
    for (const event of h.events) {
      expect(event.id).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(Number.isInteger(event.at)).toBe(true)
      expect(event.actorId).toBeNull()
    }

    const db = new Database(file)
    const rows = db.prepare("SELECT * FROM audit_events ORDER BY at, id").all() as Array<Record<string, unknown>>
    db.close()
    expect(rows.map((r) => r.type).sort()).toEqual(["signin", "signin", "signout"])
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(h.events.map((e) => e.id)))
    // No password, cookie value, CSRF token or email address anywhere: the sink, the rows.
    const everything = JSON.stringify(h.events) + JSON.stringify(rows)
    const secrets = [PASSWORD, "not-the-password", "alice@example.com", csrf.body.csrfToken, ...Object.values(jar)]
    for (const secret of secrets) expect(everything).not.toContain(secret)
  })

  it("AC17 session revocations and passkey-less acts: revoking all sessions writes session.revoked (self)", async () => {
    const h = harness({ session: { strategy: "database" } })
    await h.addUser({ id: "bob" })
    const jar = await h.signIn("bob")
    await h.signIn("bob")
    const app = express()
    app.post("/all", (req, res) => {
      void h.gatehouse.revokeAllSessions(req, res).then((ok) => res.json({ ok }))
    })
    expect((await request(app).post("/all").set("Cookie", cookieHeader(jar))).body).toEqual({ ok: true })
    await h.gatehouse.revokeUserSessions("bob")
    await settle()
    const revoked = h.events.filter((e) => e.type === "session.revoked")
    expect(revoked.map((e) => [e.userId, e.reason, e.details])).toEqual([
      ["bob", "self", { count: 2 }],
      ["bob", "admin", { count: 0 }],
    ])
  })

  it("AC18 listMyAuditEvents: the user's own events, newest first, with byAdmin and no actorId", async () => {
    const h = harness()
    await h.addUser({ id: "carol" })
    await h.addUser({ id: "dave" })
    await h.signIn("dave")
    await h.signIn("carol")
    const jar = await h.signIn("carol")
    const app = express()
    app.get("/activity", (req, res) => {
      h.gatehouse.listMyAuditEvents(req, res, { limit: 10 }).then(
        (feed) => res.json(feed),
        (error: { type?: string }) => res.status(400).json({ error: error.type }),
      )
    })
    const feed = await request(app).get("/activity").set("Cookie", cookieHeader(jar))
    expect(feed.status).toBe(200)
    const events = feed.body.events as Array<Record<string, unknown>>
    expect(events).toHaveLength(2)
    expect(events.every((e) => e.type === "signin" && e.byAdmin === false && !("actorId" in e))).toBe(true)
    expect(events.every((e) => !("details" in e) && !("userId" in e))).toBe(true)
    expect((events[0]!.at as number) >= (events[1]!.at as number)).toBe(true)
    expect((await request(app).get("/activity")).body).toBeNull()
    const bad = express()
    bad.get("/activity", (req, res) => {
      h.gatehouse.listMyAuditEvents(req, res, { limit: 51 }).then(
        (feed) => res.json(feed),
        (error: { type?: string }) => res.status(400).json({ error: error.type }),
      )
    })
    expect((await request(bad).get("/activity").set("Cookie", cookieHeader(jar))).body).toEqual({
      error: "InvalidRequest",
    })
  })

  it.each([
    [
      "throws",
      () => {
        throw new Error("sink down")
      },
    ],
    ["rejects", () => Promise.reject(new Error("sink down"))],
  ])(
    "AC19 a sink that %s: the sign-in still succeeds; audit-sink-failed logged once for 3 sign-ins",
    async (_, sink) => {
      const h = harness({ audit: { sink } })
      await h.addUser({ id: "erin" })
      for (let i = 0; i < 3; i++) expect(Object.keys(await h.signIn("erin"))).toContain("authjs.session-token")
      await settle()
      await settle()
      expect(h.warnings.filter((w) => w === "audit-sink-failed")).toHaveLength(1)
    },
  )

  it("AC19 a store that fails: the sign-in still succeeds; audit-store-failed logged once", async () => {
    const adapter = MemoryAdapter()
    const failing = {
      ...adapter,
      createAuditEvent: async () => {
        throw new Error("disk full")
      },
    }
    const h = harness({}, failing)
    await h.addUser({ id: "fay" })
    await h.signIn("fay")
    await h.signIn("fay")
    await settle()
    expect(h.warnings.filter((w) => w === "audit-store-failed")).toHaveLength(1)
    // The sink still heard both sign-ins.
    expect(h.events.filter((e) => e.type === "signin")).toHaveLength(2)
  })

  it("ratelimit.hit: the first refusal per rule and key in a window, with the rule as the reason", async () => {
    const h = harness({ rateLimit: { enabled: true, rules: { "credentials-ip": { limit: 1, window: 60 } } } })
    await h.addUser({ id: "hank" })
    await h.signIn("hank")
    for (let i = 0; i < 2; i++) await expect(h.signIn("hank")).rejects.toThrow(/sign-in failed/)
    await settle()
    const hits = h.events.filter((e) => e.type === "ratelimit.hit")
    expect(hits.map((e) => [e.outcome, e.reason, e.userId])).toEqual([["failure", "credentials-ip", null]])
  })

  it("AC20 pruneAuditEvents deletes an event past retention", async () => {
    const adapter = MemoryAdapter()
    const h = harness({ audit: { retention: 90 } }, adapter)
    await adapter.createAuditEvent({
      id: "old-event-0000000000000",
      type: "signin",
      at: new Date(Date.now() - 100 * 86_400_000),
      userId: "gus",
      actorId: null,
      ip: null,
      userAgent: null,
      provider: "credentials",
      outcome: "success",
      reason: null,
    })
    expect(await h.gatehouse.pruneAuditEvents()).toBeGreaterThanOrEqual(1)
    expect(await adapter.listAuditEvents({ userId: "gus", limit: 10 })).toEqual([])
  })

  it("construction: unknown audit keys, a bad retention, store 'adapter' without the methods", () => {
    const base = { secret: SECRET, trustHost: true, providers: [Credentials({ authorize: () => null })] }
    expect(() => Gatehouse({ ...base, audit: { retension: 30 } as never })).toThrow(InvalidConfig)
    expect(() => Gatehouse({ ...base, audit: { retention: 0 } })).toThrow(InvalidConfig)
    expect(() => Gatehouse({ ...base, audit: { retention: 3651 } })).toThrow(InvalidConfig)
    expect(() => Gatehouse({ ...base, audit: { store: "adapter" } })).toThrow(MissingAdapterMethods)
    expect(() => Gatehouse({ ...base, audit: { store: false, retention: 7 } })).not.toThrow()
  })
})
