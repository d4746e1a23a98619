/**
 * The `node:http` demo: `gatehouse-auth/web` with no framework. Each Node request becomes a Web `Request`
 * (`toWebRequest`); `handle()` answers the auth routes, a small router the rest; `applyCookies` adds a refreshed
 * session cookie; `sendWebResponse` writes the answer.
 */
import { createServer, type Server } from "node:http"
import { sendWebResponse, toWebRequest } from "../../lib"
import { CredentialsSignin, MissingCSRF, type WebGatehouse } from "../../lib/web"
import { createDemoGatehouse, homeBody, loginAgainBody, page, protectedBody } from "../common/fetch-demo"

async function route(gh: WebGatehouse, request: Request): Promise<Response> {
  const { pathname } = new URL(request.url)
  const key = `${request.method} ${pathname}`
  try {
    if (key === "GET /") return page("Gatehouse on node:http", homeBody(await gh.auth(request)))
    if (key === "POST /login") {
      const form = await request.formData()
      const fields = { username: form.get("username"), password: form.get("password"), redirectTo: "/protected" }
      return await gh.signIn(request, "credentials", fields)
    }
    if (key === "POST /logout") return await gh.signOut(request, { redirectTo: "/" })
    if (key === "GET /protected") {
      return await gh.auth((req) => page("Protected page", protectedBody(req.auth)))(request)
    }
    if (key === "GET /api/me") {
      const session = await gh.auth(request)
      return session ? Response.json(session) : Response.json({ error: "Unauthorized" }, { status: 401 })
    }
    return new Response("Not found", { status: 404 })
  } catch (error) {
    if (error instanceof CredentialsSignin) return page("Sign in", loginAgainBody(), 401)
    if (error instanceof MissingCSRF) return new Response("Forbidden: cross-site request", { status: 403 })
    throw error
  }
}

/**
 * Builds the server (not listening yet).
 *
 * @example
 * ```ts
 * createDemoServer().listen(3000)
 * ```
 */
export function createDemoServer(gh: WebGatehouse = createDemoGatehouse()): Server {
  return createServer((req, res) => {
    void (async () => {
      const request = await toWebRequest(req)
      const response = (await gh.handle(request)) ?? (await route(gh, request))
      await sendWebResponse(gh.applyCookies(request, response), res)
    })().catch((error: unknown) => {
      console.error(error)
      if (!res.headersSent) res.statusCode = 500
      res.end()
    })
  })
}
