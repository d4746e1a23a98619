/** TikTok Login Kit (OAuth 2): TikTok names the client `client_key`; the user is under `data.user`. */
import type { User } from "../models"
import { customFetch } from "../symbols"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET /v2/user/info/?fields=open_id,avatar_url,display_name`. */
export interface TikTokProfile {
  data: {
    user: {
      open_id: string
      union_id?: string
      avatar_url?: string
      display_name?: string
      username?: string
      [field: string]: unknown
    }
  }
  error?: { code: string; message: string; log_id?: string }
  [field: string]: unknown
}

/** Options of {@link TikTok}. */
export type TikTokUserConfig<P extends TikTokProfile = TikTokProfile> = OAuthUserConfig<P>

/**
 * The token request with TikTok's parameter name: the form body oauth4webapi builds for `client_secret_post` carries
 * `client_id`, which TikTok wants as `client_key`. Every other request passes through unchanged.
 */
function tiktokFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input)
  if (url.pathname === "/v2/oauth/token/" && init?.body instanceof URLSearchParams) {
    const body = new URLSearchParams(init.body)
    const clientId = body.get("client_id")
    if (clientId !== null && !body.has("client_key")) body.set("client_key", clientId)
    return fetch(input, { ...init, body })
  }
  return fetch(input, init)
}

/**
 * TikTok sign-in (`type: "oauth"`), scope `user.info.basic`, credentials in the body (`client_secret_post`). TikTok
 * calls the client id `client_key`: the authorization request carries it (so give `clientId` to the factory, or pass
 * the factory itself and set `AUTH_TIKTOK_ID`), and the token request gets it beside `client_id`. TikTok returns no
 * email.
 *
 * @example
 * ```ts
 * import TikTok from "gatehouse-auth/providers/tiktok"
 * TikTok({ clientId: "<client key>", clientSecret: "<client secret>" })
 * ```
 */
export function TikTok<P extends TikTokProfile = TikTokProfile>(options: TikTokUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "tiktok",
    name: "TikTok",
    type: "oauth",
    authorization: {
      url: "https://www.tiktok.com/v2/auth/authorize",
      params: { scope: "user.info.basic", ...(options.clientId ? { client_key: options.clientId } : {}) },
    },
    token: "https://open.tiktokapis.com/v2/oauth/token/",
    userinfo: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_url,display_name",
    client: { token_endpoint_auth_method: "client_secret_post" },
    [customFetch]: tiktokFetch as typeof fetch,
    profile(profile: P): User {
      const user = profile.data.user
      return { id: user.open_id, name: user.display_name ?? null, email: null, image: user.avatar_url ?? null }
    },
    style: { brandColor: "#000000", text: "#ffffff" },
    options,
  }
}

export default TikTok
