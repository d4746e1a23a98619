// tokens.md §5: no store key holds a raw user id. The "signed out everywhere" watermark is `sess-nbf:<h>` with
// h = base64url(SHA-256(sub)); a watermark of the old form `sess-nbf:<sub>`, written before the upgrade, still ends
// the sessions that began before it for the rest of its TTL. Both forms are read in the one store round trip.
import { createHash } from "node:crypto"
import express from "express"
import request from "supertest"
import { cookieHeader, harness } from "../accounts/harness"

const HASHED = `sess-nbf:${createHash("sha256").update("bob").digest("base64url")}`
const LEGACY = "sess-nbf:bob"

/** bob signed in with a JWT session: the harness and the browser's cookies. */
async function signedIn(h = harness({ session: { strategy: "jwt" } })) {
  if (!(await h.adapter.getUser("bob"))) await h.addUser({ id: "bob", email: "bob@example.com" })
  return { h, jar: await h.signIn("bob") }
}

const read = (h: ReturnType<typeof harness>, jar: Record<string, string>) =>
  request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))

describe("the sess-nbf watermark of a user", () => {
  it("is written by sign-out everywhere under the hash of sub only, and ends every session of the user", async () => {
    const { h, jar } = await signedIn()
    const other = await signedIn(h)
    const app = express()
    app.post("/everywhere", (req, res, next) => {
      h.gatehouse.revokeAllSessions(req, res).then((done) => res.json(done), next)
    })
    expect((await request(app).post("/everywhere").set("Cookie", cookieHeader(jar))).body).toBe(true)
    const [hashed, legacy] = await h.adapter.store.get([HASHED, LEGACY])
    expect(Number(hashed)).toBeGreaterThan(0)
    expect(legacy).toBeNull()
    expect((await read(h, jar)).body).toBeNull()
    expect((await read(h, other.jar)).body).toBeNull()
  })

  it("is written by a server-side revocation of the user under the hash of sub only", async () => {
    const { h, jar } = await signedIn()
    await h.gatehouse.revokeUserSessions("bob")
    expect(await h.adapter.store.get([HASHED, LEGACY])).toEqual([expect.stringMatching(/^\d+$/), null])
    expect((await read(h, jar)).body).toBeNull()
  })

  it("of the old form (sess-nbf:<sub>) still ends the sessions that began before it, not the later ones", async () => {
    const { h, jar } = await signedIn()
    await h.adapter.store.setMax(LEGACY, Date.now() + 1, 3600)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const later = await signedIn(h)
    expect((await read(h, jar)).body).toBeNull()
    expect((await read(h, later.jar)).body).toMatchObject({ user: { email: "bob@example.com" } })
  })

  it("is read in both forms in the one store round trip, with keys kept per decoded payload", async () => {
    const { h, jar } = await signedIn()
    const get = jest.spyOn(h.adapter.store, "get")
    for (let i = 0; i < 3; i++) {
      expect((await read(h, jar)).body).toMatchObject({ user: { email: "bob@example.com" } })
    }
    const reads = get.mock.calls.filter(([keys]) => keys.includes(HASHED))
    expect(reads).toHaveLength(3)
    expect(reads[0]![0]).toEqual(expect.arrayContaining([HASHED, LEGACY]))
    // Later reads of the same cookie get the cached payload, whose keys were computed once.
    expect(reads[2]![0]).toBe(reads[1]![0])
  })
})

describe("a user id longer than a store key", () => {
  // The old forms (`sess-nbf:<sub>`, `sess-end:<sub>:<se>`) of such an id exceed the store's key limit: they were never
  // written, and asking for them made every read of the user's sessions fail.
  const longId = "u".repeat(600)

  it("reads its sessions, and sign-out everywhere still ends them", async () => {
    const h = harness({ session: { strategy: "jwt" } })
    await h.addUser({ id: longId, email: "long@example.com" })
    const jar = await h.signIn(longId)
    expect((await read(h, jar)).body).toMatchObject({ user: { email: "long@example.com" } })
    await h.gatehouse.revokeUserSessions(longId)
    expect((await read(h, jar)).body).toBeNull()
  })
})
