// The examples of issue 32 run: the CLI login (loopback redirect, code exchange, a call to a protected API) against
// the example server, and the resource server against a real authorization server (oidc-provider).
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import request from "supertest"
import { createApp } from "../../examples/cli-login/server"
import { login } from "../../examples/cli-login/cli"
import { createResourceServer } from "../../examples/resource-server/app"
import { API, OTHER_API, startResourceOp } from "../fixtures/oauth/resource-op"

/** A browser that signs in with the credentials form and presses "Continue" on the confirm page. */
async function browser(url: string): Promise<void> {
  const cookies = new Map<string, string>()
  const send = async (target: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    const res = await fetch(target, { ...init, headers, redirect: "manual" })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    return res
  }
  const start = await send(url)
  const signinPage = new URL(start.headers.get("location")!, url)
  const continuation = signinPage.searchParams.get("callbackUrl")!
  const csrf = (await (await send(new URL("/auth/csrf", url).href)).json()) as { csrfToken: string }
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  })
  await send(
    new URL("/auth/callback/credentials", url).href,
    form({ ...csrf, username: "alice", password: "wonderland", callbackUrl: continuation }),
  )
  const page = await (await send(continuation)).text()
  const ctx = /name="ctx" value="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, "&")
  const allowed = await send(new URL("/auth/native", url).href, form({ ...csrf, ctx, action: "allow" }))
  await fetch(allowed.headers.get("location")!)
}

test("examples/cli-login: the CLI signs in through the browser and calls the protected API", async () => {
  const server: Server = await new Promise((resolve) => {
    const s = createApp("http://127.0.0.1:0").listen(0, "127.0.0.1", () => resolve(s))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  server.removeAllListeners("request")
  server.on("request", createApp(origin))
  try {
    const result = await login(origin, browser)
    expect(result.api).toEqual({ hello: "alice" })
    expect(typeof result.session).toBe("string")
  } finally {
    server.closeAllConnections()
    server.close()
  }
})

test("examples/resource-server: JWT and introspected tokens, scopes per route, and the RFC 9728 document", async () => {
  const op = await startResourceOp()
  try {
    const app = createResourceServer({
      issuer: op.issuer,
      audience: API,
      publicUrl: "http://127.0.0.1:8080",
      introspection: { clientId: op.clientId, clientSecret: op.clientSecret },
    })
    const read = await op.token({ scope: "read" })
    expect((await request(app).get("/mcp/notes").set("Authorization", `Bearer ${read}`)).status).toBe(200)
    const denied = await request(app).post("/mcp/notes").set("Authorization", `Bearer ${read}`)
    expect(denied.status).toBe(403)
    const write = await op.token({ scope: "read write" })
    expect((await request(app).post("/mcp/notes").set("Authorization", `Bearer ${write}`)).body).toEqual({
      by: op.clientId,
    })
    const opaque = await op.token({ resource: OTHER_API })
    expect((await request(app).get("/mcp/notes").set("Authorization", `Bearer ${opaque}`)).body.code).toBe(
      "wrong_audience",
    )
    const doc = await request(app).get("/.well-known/oauth-protected-resource/mcp")
    expect(doc.body.authorization_servers).toEqual([op.issuer])
    const anonymous = await request(app).get("/mcp/notes")
    expect(anonymous.headers["www-authenticate"]).toContain(
      'resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"',
    )
  } finally {
    await op.close()
  }
})
