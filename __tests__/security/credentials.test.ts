// CR-08 (issue 11): credentials with database sessions never merge a sign-in into another user by email.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { Auth } from "../../lib/core"
import Credentials from "../../lib/providers/credentials"
import { applyCookies, csrf, makeRequest, ORIGIN, SECRET, testLogger } from "../core/helpers"

const SESSION_COOKIE = "__Secure-authjs.session-token"

function setup() {
  const adapter = MemoryAdapter()
  const createSession = jest.spyOn(adapter, "createSession")
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database" as const },
    logger: testLogger(),
    providers: [
      Credentials({
        credentials: { username: {} },
        // An app bug or a hostile directory: an id the adapter does not know, with a stored user's address.
        authorize: (c) => ({ id: `ext-${String(c.username)}`, email: `${String(c.username)}@example.test` }),
      }),
    ],
  }
  return { adapter, config, createSession }
}

async function signIn(config: ReturnType<typeof setup>["config"], username: string): Promise<Response> {
  const { token, cookies } = await csrf(config)
  return Auth(makeRequest("/auth/callback/credentials", { cookies, body: { csrfToken: token, username } }), config)
}

describe("CR-08", () => {
  it("an unknown id with the email of an existing user is refused, not signed in as that user", async () => {
    const { adapter, config, createSession } = setup()
    await adapter.createUser({ id: "victim", email: "victim@example.test", emailVerified: new Date() })
    const response = await signIn(config, "victim")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(applyCookies({}, response)[SESSION_COOKIE]).toBeUndefined()
    expect(createSession).not.toHaveBeenCalled()
    expect(config.logger.errors.map((e) => e.message)).toContain(
      "authorize() returned an unknown user id with the email of another user",
    )
  })

  it("the returned id is used: created when absent, found when present", async () => {
    const { adapter, config, createSession } = setup()
    const first = await signIn(config, "ada")
    expect(first.headers.get("location")).toBe(ORIGIN)
    expect((await adapter.getUser("ext-ada"))?.email).toBe("ada@example.test")
    await signIn(config, "ada")
    expect(createSession.mock.calls.map(([s]) => s.userId)).toEqual(["ext-ada", "ext-ada"])
  })
})
