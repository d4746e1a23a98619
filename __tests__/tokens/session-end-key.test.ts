// tokens.md §1.6 and §5: one JWT session is ended by `sess-end:<h>` with h = base64url(SHA-256(sub + "|" + se)), so
// no key holds a raw user id; a mark of the old form `sess-end:<sub>:<se>`, written before the upgrade, still ends
// its session for the rest of its TTL.
import { createHash } from "node:crypto"
import express from "express"
import request from "supertest"
import { decode } from "../../lib/jwt"
import { SECRET } from "../express/apps"
import { cookieHeader, harness } from "../accounts/harness"

const SESSION = "authjs.session-token"

/** bob signed in with a JWT session: the harness, the browser's cookies and the session's epoch `__gh.se`. */
async function signedIn(h = harness({ session: { strategy: "jwt" } })) {
  if (!(await h.adapter.getUser("bob"))) await h.addUser({ id: "bob", email: "bob@example.com" })
  const jar = await h.signIn("bob")
  const token = await decode({ token: jar[SESSION], secret: SECRET, salt: SESSION })
  const se = (token?.__gh as { se?: unknown } | undefined)?.se
  if (typeof se !== "number") throw new Error("no session epoch")
  return { h, jar, se }
}

const read = (h: ReturnType<typeof harness>, jar: Record<string, string>) =>
  request(h.app).get("/auth/session").set("Cookie", cookieHeader(jar))

describe("the sess-end mark of one JWT session", () => {
  it("is written under the hash of sub|se, never the raw user id, and ends every copy of the cookie", async () => {
    const { h, jar, se } = await signedIn()
    const app = express()
    app.post("/revoke", (req, res, next) => {
      h.gatehouse.revokeSession(req, res, "jwt").then((done) => res.json(done), next)
    })
    const revoked = await request(app).post("/revoke").set("Cookie", cookieHeader(jar))
    expect(revoked.body).toBe(true)
    const hashed = `sess-end:${createHash("sha256").update(`bob|${se}`).digest("base64url")}`
    expect(await h.adapter.store.get([hashed, `sess-end:bob:${se}`])).toEqual(["1", null])
    expect((await read(h, jar)).body).toBeNull()
  })

  it("of the old form (sess-end:<sub>:<se>) still ends its session, and only that one", async () => {
    const { h, jar, se } = await signedIn()
    const other = await signedIn(h)
    expect(other.se).not.toBe(se)
    await h.adapter.store.set(`sess-end:bob:${se}`, "1", 3600)
    expect((await read(h, jar)).body).toBeNull()
    expect((await read(h, other.jar)).body).toMatchObject({ user: { email: "bob@example.com" } })
  })
})
