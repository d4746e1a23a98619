// The server side of the CLI login example: Gatehouse with native sign-in (a loopback redirect URI, any port), access
// tokens for other services, and an API that accepts them (gatehouse-auth/resource verifying Gatehouse's own tokens).
import express, { type Express } from "express"
import { Gatehouse } from "../../lib"
import Credentials from "../../lib/providers/credentials"
import { requireAccessToken } from "../../lib/resource"

export const API_AUDIENCE = "https://api.example.test"

/** The app; `origin` is where it is served (the access-token issuer is `<origin>/auth`). */
export function createApp(origin: string): Express {
  const gatehouse = Gatehouse({
    secret: process.env.AUTH_SECRET ?? "cli-login-example-secret-0123456789abcdef",
    trustHost: true,
    session: { bearer: true },
    native: { redirectUris: ["http://127.0.0.1/callback"], name: "Example CLI" },
    accessTokens: { audience: API_AUDIENCE, scopes: ["read"] },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: (c) =>
          c.username === "alice" && c.password === "wonderland"
            ? { id: "alice", name: "Alice", email: "alice@example.test" }
            : null,
      }),
    ],
  })
  const app = express()
  app.use("/auth", gatehouse.handlers)
  app.get(
    "/api/hello",
    requireAccessToken({
      issuer: `${origin}/auth`,
      audience: API_AUDIENCE,
      jwksUri: `${origin}/auth/jwks`,
      scopes: ["read"],
    }),
    (req, res) => void res.json({ hello: req.accessToken?.payload.sub }),
  )
  return app
}

if (require.main === module) {
  const port = Number(process.env.PORT ?? 3000)
  createApp(`http://127.0.0.1:${port}`).listen(port, "127.0.0.1", () => {
    console.log(`CLI login example server on http://127.0.0.1:${port} (sign in as alice / wonderland)`)
  })
}
