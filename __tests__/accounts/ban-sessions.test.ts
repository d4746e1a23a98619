// Acceptance row AC13 (accounts.md §10, §3.4) with both strategies at once: two apps on one adapter and its shared
// store, one issuing JWT sessions and one database sessions. A ban through either app ends bob's live session in both
// at once (the database rows deleted, the JWT watermark set in the shared store); other users' sessions live on.
import request from "supertest"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { cookieHeader, harness, postJson } from "./harness"
import type { Harness } from "./harness"

const sessionOf = async (h: Harness, jar: Record<string, string>) =>
  (await request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))).body as {
    user?: { email?: string }
  } | null

async function twoApps() {
  const adapter = MemoryAdapter()
  const features = { adminRoutes: true }
  const jwt = harness({ features, admin: {}, session: { strategy: "jwt" } }, adapter)
  const db = harness({ features, admin: {}, session: { strategy: "database" } }, adapter)
  await jwt.addUser({ id: "root", email: "root@example.com", role: "admin" })
  await jwt.addUser({ id: "bob", email: "bob@example.com" })
  await jwt.addUser({ id: "cat", email: "cat@example.com" })
  return { adapter, jwt, db }
}

describe("AC13 with database sessions", () => {
  for (const via of ["database", "jwt"] as const) {
    it(`AC13 ban through the ${via} app: bob's live JWT and database sessions both read null at once`, async () => {
      const { adapter, jwt, db } = await twoApps()
      const bobJwt = await jwt.signIn("bob")
      const bobDb = await db.signIn("bob")
      const catDb = await db.signIn("cat")
      expect((await sessionOf(jwt, bobJwt))?.user?.email).toBe("bob@example.com")
      expect((await sessionOf(db, bobDb))?.user?.email).toBe("bob@example.com")
      expect(await adapter.listSessionsByUserId("bob")).toHaveLength(1)

      const admin = via === "database" ? db : jwt
      const root = await admin.signIn("root")
      const ban = await postJson(admin.app, root, "/auth/admin/ban", { id: "bob", reason: "r-secret" })
      expect([ban.status, ban.body.banned]).toEqual([200, true])

      expect(await sessionOf(db, bobDb)).toBeNull()
      expect(await sessionOf(jwt, bobJwt)).toBeNull()
      expect(await adapter.listSessionsByUserId("bob")).toEqual([])
      expect((await sessionOf(db, catDb))?.user?.email).toBe("cat@example.com")
      const revoked = admin.events.find((e) => e.type === "session.revoked")
      expect(revoked).toMatchObject({ userId: "bob", actorId: "root", reason: "ban", details: { count: 1 } })
    })
  }
})
