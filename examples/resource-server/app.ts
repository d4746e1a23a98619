// An API protected by access tokens from any issuer (gatehouse-auth/resource): RFC 9068 JWTs with the issuer's JWKS,
// opaque tokens through introspection, and the RFC 9728 document that points MCP clients at the authorization server.
import express, { type Express } from "express"
import { protectedResourceMetadata, requireAccessToken } from "../../lib/resource"

export interface ResourceServerSettings {
  /** The authorization server's issuer (discovery at `<issuer>/.well-known/openid-configuration`). */
  issuer: string
  /** This API's identifier, the `aud` of its tokens. */
  audience: string
  /** Where this API is served, for its RFC 9728 document. */
  publicUrl: string
  /** Client credentials for RFC 7662 introspection of opaque tokens. */
  introspection?: { clientId: string; clientSecret: string }
}

export function createResourceServer(settings: ResourceServerSettings): Express {
  const meta = protectedResourceMetadata({
    resource: `${settings.publicUrl}/mcp`,
    authorizationServers: [settings.issuer],
    scopesSupported: ["read", "write"],
  })
  const base = {
    issuer: settings.issuer,
    audience: settings.audience,
    resourceMetadata: meta.url,
    ...(settings.introspection ? { introspection: settings.introspection } : {}),
  }
  const read = requireAccessToken({ ...base, scopes: ["read"] })
  const write = requireAccessToken({ ...base, scopes: ["write"] })
  const app = express()
  app.get(meta.path, meta)
  app.get("/mcp/notes", read, (_req, res) => void res.json({ notes: ["first"] }))
  app.post("/mcp/notes", write, (req, res) => void res.status(201).json({ by: req.accessToken?.payload.sub }))
  return app
}
