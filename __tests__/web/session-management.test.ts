// Session management in the Fetch flavour: the same members as Express, with cookies delivered by applyCookies.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { hashSessionToken } from "../../lib/core/session/token"
import Credentials from "../../lib/providers/credentials"
import { Gatehouse } from "../../lib/web"

const COOKIE = "authjs.session-token"

async function setup() {
  const adapter = MemoryAdapter()
  await adapter.createUser({ id: "u1", name: "Ada", email: "ada@example.test", emailVerified: null })
  const tokens = ["token-one-0123456789", "token-two-0123456789", "token-three-01234567"]
  for (const [i, token] of tokens.entries()) {
    await adapter.createSession({
      sessionToken: hashSessionToken(token),
      userId: "u1",
      expires: new Date(Date.now() + 3_600_000),
      createdAt: new Date(Date.now() - i * 1000),
    })
  }
  const gh = Gatehouse({
    secret: "web-session-management-secret-0123456789",
    trustHost: true,
    adapter,
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [Credentials({ credentials: {}, authorize: () => null })],
  })
  const request = (token: string) =>
    new Request("http://localhost:3000/account", { headers: { cookie: `${COOKIE}=${token}` } })
  return { adapter, gh, tokens, request }
}

describe("web flavour session management", () => {
  it("lists, revokes by id, revokes the others and all; the cleared cookie goes out through applyCookies", async () => {
    const { adapter, gh, tokens, request } = await setup()
    const list = (await gh.listSessions(request(tokens[0]!)))!
    expect(list).toHaveLength(3)
    expect(list[0]).toMatchObject({ current: true })
    expect(JSON.stringify(list)).not.toContain("token-")

    await expect(gh.revokeSession(request(tokens[0]!), "x".repeat(22))).resolves.toBe(false)
    await expect(gh.revokeSession(request(tokens[0]!), list[2]!.id)).resolves.toBe(true)
    expect(await adapter.listSessionsByUserId("u1")).toHaveLength(2)
    await expect(gh.revokeOtherSessions(request(tokens[0]!))).resolves.toBe(true)
    expect(await adapter.listSessionsByUserId("u1")).toHaveLength(1)

    const last = request(tokens[0]!)
    await expect(gh.revokeAllSessions(last)).resolves.toBe(true)
    const response = gh.applyCookies(last, new Response("ok"))
    expect(response.headers.getSetCookie()).toEqual([`${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`])
    expect(await adapter.listSessionsByUserId("u1")).toHaveLength(0)
    await expect(gh.listSessions(request(tokens[0]!))).resolves.toBeNull()
  })

  it("revokeUserSessions and deleteUser need no request", async () => {
    const { adapter, gh } = await setup()
    await expect(gh.revokeUserSessions("u1")).resolves.toBe(3)
    await expect(gh.deleteUser("u1")).resolves.toMatchObject({ id: "u1" })
    expect(await adapter.getUser("u1")).toBeNull()
  })
})
