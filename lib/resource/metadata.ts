/** `protectedResourceMetadata(options)`: the RFC 9728 document of a protected resource (tokens.md T4.8). */
import type { Request, Response } from "express"
import { InvalidConfig } from "../errors"
import { DPOP_ALGS, isLoopback } from "./options"

export interface ProtectedResourceMetadataOptions {
  /** The resource identifier: an https URL (http on loopback) without fragment. */
  resource: string
  /** The issuers of the authorization servers. */
  authorizationServers: string[]
  scopesSupported?: string[]
  resourceName?: string
  resourceDocumentation?: string
  dpopBoundAccessTokensRequired?: boolean
}

/** The metadata as an Express handler, with where to mount it and the document it answers. */
export type ProtectedResourceMetadata = ((req: Request, res: Response) => void) & {
  /** `/.well-known/oauth-protected-resource` plus the resource's path. */
  readonly path: string
  /** The absolute URL of the document (pass it as `resourceMetadata` to `requireAccessToken`). */
  readonly url: string
  readonly document: Readonly<Record<string, unknown>>
  /** The answer as a Web `Response`. */
  fetch(request?: Request | globalThis.Request): globalThis.Response
}

const headers = {
  "Content-Type": "application/json",
  "Cache-Control": "public, max-age=3600",
  "Access-Control-Allow-Origin": "*",
} as const

/**
 * Builds the RFC 9728 metadata of a protected resource; mount it with `app.get(meta.path, meta)`.
 *
 * @example
 * ```ts
 * const meta = protectedResourceMetadata({ resource: "https://api.example.com/mcp", authorizationServers: [issuer] })
 * app.get(meta.path, meta)
 * ```
 */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  let url: URL
  try {
    url = new URL(options.resource)
  } catch {
    throw new InvalidConfig("protectedResourceMetadata: resource must be an absolute URL", {
      cause: { option: "resource" },
    })
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))
  if (!secure || options.resource.includes("#")) {
    throw new InvalidConfig("protectedResourceMetadata: resource must be https (http on loopback), no fragment", {
      cause: { option: "resource" },
    })
  }
  const servers = options.authorizationServers
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => typeof s !== "string" || s === "")) {
    throw new InvalidConfig("protectedResourceMetadata: authorizationServers must list at least one issuer", {
      cause: { option: "authorizationServers" },
    })
  }
  const document = Object.freeze({
    resource: options.resource,
    authorization_servers: [...servers],
    bearer_methods_supported: ["header"],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    ...(options.scopesSupported ? { scopes_supported: [...options.scopesSupported] } : {}),
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation ? { resource_documentation: options.resourceDocumentation } : {}),
    ...(options.dpopBoundAccessTokensRequired !== undefined
      ? { dpop_bound_access_tokens_required: options.dpopBoundAccessTokensRequired }
      : {}),
  })
  const resourcePath = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "")
  const path = `/.well-known/oauth-protected-resource${resourcePath}`
  const body = JSON.stringify(document)
  const handler = (_req: Request, res: Response): void => {
    res.status(200).set(headers).send(body)
  }
  return Object.assign(handler, {
    path,
    url: `${url.origin}${path}`,
    document,
    fetch: () => new globalThis.Response(body, { status: 200, headers }),
  })
}
