/**
 * The Hono demo: `gatehouse-auth/web` on Hono. The auth routes under /auth, the session on every request (its
 * refreshed cookie applied to every answer), server-side sign-in and sign-out, and a page `authorized` protects.
 */
import { Hono } from "hono"
import { CredentialsSignin, MissingCSRF, type Session, type WebGatehouse } from "../../lib/web"
import { createDemoGatehouse, homeBody, loginAgainBody, page, protectedBody } from "../common/fetch-demo"

type Env = { Variables: { session: Session | null } }

/**
 * Builds the Hono app.
 *
 * @example
 * ```ts
 * serve({ fetch: createApp().fetch, port: 3000 })
 * ```
 */
export function createApp(gh: WebGatehouse = createDemoGatehouse()): Hono<Env> {
  const app = new Hono<Env>()
  app.on(["GET", "POST"], "/auth/*", (c) => gh.handlers[c.req.method as "GET" | "POST"](c.req.raw))
  app.use("*", async (c, next) => {
    c.set("session", await gh.auth(c.req.raw))
    await next()
    c.res = gh.applyCookies(c.req.raw, c.res)
  })

  app.get("/", (c) => page("Gatehouse on Hono", homeBody(c.get("session"))))

  app.post("/login", async (c) => {
    const form = await c.req.formData()
    const fields = { username: form.get("username"), password: form.get("password"), redirectTo: "/protected" }
    try {
      return await gh.signIn(c.req.raw, "credentials", fields)
    } catch (error) {
      if (error instanceof CredentialsSignin) return page("Sign in", loginAgainBody(), 401)
      if (error instanceof MissingCSRF) return c.text("Forbidden: cross-site request", 403)
      throw error
    }
  })

  app.post("/logout", async (c) => {
    try {
      return await gh.signOut(c.req.raw, { redirectTo: "/" })
    } catch (error) {
      if (error instanceof MissingCSRF) return c.text("Forbidden: cross-site request", 403)
      throw error
    }
  })

  // auth(handler): `authorized` runs first; a visitor is sent to sign in and the handler never runs.
  const protectedPage = gh.auth((request) => page("Protected page", protectedBody(request.auth)))
  app.get("/protected", (c) => protectedPage(c.req.raw))

  app.get("/api/me", (c) => {
    const session = c.get("session")
    return session ? c.json(session) : c.json({ error: "Unauthorized" }, 401)
  })
  return app
}
