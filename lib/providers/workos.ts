/** WorkOS SSO (OAuth 2): one sign-in for the enterprise connections of a WorkOS project. */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The profile as `GET /sso/profile` returns it (common fields). */
export interface WorkOSProfile {
  id: string
  object?: "profile"
  email: string
  first_name?: string | null
  last_name?: string | null
  connection_id?: string
  connection_type?: string
  organization_id?: string | null
  idp_id?: string
  raw_attributes?: { picture?: string; [field: string]: unknown }
  [field: string]: unknown
}

/** Options of {@link WorkOS}: the usual OAuth options plus the connection. */
export type WorkOSUserConfig<P extends WorkOSProfile = WorkOSProfile> = OAuthUserConfig<P> & {
  /** The WorkOS connection id (`conn_...`) sent as `connection` on the authorization request. */
  connection?: string
}

/**
 * WorkOS sign-in (`type: "oauth"`), credentials in the body (`client_secret_post`). `issuer` defaults to
 * `https://api.workos.com/`; `connection` picks the enterprise connection.
 *
 * @example
 * ```ts
 * import WorkOS from "gatehouse-auth/providers/workos"
 * WorkOS({ clientId: "client_...", clientSecret: "sk_...", connection: "conn_..." })
 * ```
 */
export function WorkOS<P extends WorkOSProfile = WorkOSProfile>(options: WorkOSUserConfig<P> = {}): OAuthConfig<P> {
  const { connection = "", ...rest } = options
  const base = (rest.issuer ?? "https://api.workos.com/").replace(/\/*$/, "/")
  return {
    id: "workos",
    name: "WorkOS",
    type: "oauth",
    authorization: `${base}sso/authorize?${new URLSearchParams({ connection })}`,
    token: `${base}sso/token`,
    userinfo: `${base}sso/profile`,
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile: P): User {
      return {
        id: profile.id,
        name: `${profile.first_name} ${profile.last_name}`,
        email: profile.email ?? null,
        image: profile.raw_attributes?.picture ?? null,
      }
    },
    style: { brandColor: "#6363f1", text: "#ffffff" },
    options: rest as OAuthUserConfig<P>,
  }
}

export default WorkOS
