// Issue 11 #15: with database sessions, the `session` callback's `session` argument carries no raw `sessionToken`
// (nor `userId`), and GET /auth/session never answers one, even when the callback returns `session` unchanged.
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import { Auth } from "../../lib/core"
import type { Session } from "../../lib/core/kernel/types"
import { credentialsConfig, makeRequest, signIn } from "../core/helpers"

const SESSION_COOKIE = "__Secure-authjs.session-token"

describe("session token in the session answer (#15)", () => {
  it("a session callback returning `session` unchanged exposes no sessionToken or userId", async () => {
    const seen: Record<string, unknown>[] = []
    const config = credentialsConfig({
      adapter: MemoryAdapter(),
      session: { strategy: "database" },
      callbacks: {
        session: ({ session }) => {
          seen.push({ ...session })
          return session
        },
      },
    })
    const cookies = await signIn(config)
    const token = cookies[SESSION_COOKIE] as string
    expect(token).toBeTruthy()
    const response = await Auth(makeRequest("/auth/session", { cookies }), config)
    const text = await response.text()
    expect(text).not.toContain(token)
    const body = JSON.parse(text) as Session & Record<string, unknown>
    expect(body).not.toHaveProperty("sessionToken")
    expect(body).not.toHaveProperty("userId")
    expect(body.user).toMatchObject({ id: "user-1", email: "ada@example.test" })
    expect(seen[0]).not.toHaveProperty("sessionToken")
    expect(seen[0]).not.toHaveProperty("userId")
  })

  it("a callback that copies a sessionToken field in still does not reach the answer", async () => {
    const config = credentialsConfig({
      adapter: MemoryAdapter(),
      session: { strategy: "database" },
      callbacks: { session: ({ session }) => ({ ...session, sessionToken: "copied" }) as Session },
    })
    const cookies = await signIn(config)
    const body = (await (await Auth(makeRequest("/auth/session", { cookies }), config)).json()) as object
    expect(body).not.toHaveProperty("sessionToken")
  })
})
