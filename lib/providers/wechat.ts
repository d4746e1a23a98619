/**
 * WeChat (OAuth 2 with WeChat's own parameter names): `appid` for the client id, a token GET with the secret in the
 * query, and the `openid` of the token response handed to the userinfo call.
 */
import type { Profile, User } from "../models"
import { customFetch } from "../symbols"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The answer of `GET https://api.weixin.qq.com/sns/userinfo`. */
export interface WeChatProfile {
  openid: string
  /** Present when the app is bound to a WeChat Open Platform account. */
  unionid?: string
  nickname?: string
  sex?: number
  province?: string
  city?: string
  country?: string
  headimgurl?: string
  privilege?: string[]
  [field: string]: unknown
}

/** Options of {@link WeChat}: the usual OAuth options plus where the sign-in happens. */
export type WeChatUserConfig<P extends WeChatProfile = WeChatProfile> = OAuthUserConfig<P> & {
  /**
   * `"OfficialAccount"` (default): inside WeChat, scope `snsapi_userinfo`. `"WebsiteApp"`: a website showing a QR code
   * (`/connect/qrconnect`), scope `snsapi_login`.
   */
  platformType?: "OfficialAccount" | "WebsiteApp"
}

const TOKEN_URL = "https://api.weixin.qq.com/sns/oauth2/access_token"
const USERINFO_URL = "https://api.weixin.qq.com/sns/userinfo"

/**
 * The token request as WeChat documents it: a GET whose query carries `appid`, `secret`, `code` and `grant_type`.
 * oauth4webapi sends a POST form with `client_id` and `client_secret` (`client_secret_post`); this moves them. It is
 * the one place where Gatehouse puts a secret in a URL, because WeChat's API takes it nowhere else.
 */
function wechatFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input)
  if (`${url.origin}${url.pathname}` !== TOKEN_URL || !(init?.body instanceof URLSearchParams)) {
    return fetch(input, init)
  }
  const form = init.body
  const names: [string, string][] = [
    ["client_id", "appid"],
    ["client_secret", "secret"],
    ["code", "code"],
    ["grant_type", "grant_type"],
  ]
  for (const [from, to] of names) {
    const value = form.get(from)
    if (value !== null) url.searchParams.set(to, value)
  }
  const { body: _body, method: _method, ...rest } = init
  const headers = new Headers(init.headers)
  headers.delete("content-type")
  headers.delete("authorization")
  return fetch(url, { ...rest, method: "GET", headers })
}

/** WeChat's token response has no `token_type`; oauth4webapi requires one. */
async function conformToken(response: Response): Promise<Response> {
  if (!response.ok) return response
  const body = (await response.clone().json()) as Record<string, unknown>
  if (typeof body.token_type === "string") return response
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  return new Response(JSON.stringify({ ...body, token_type: "bearer" }), { status: response.status, headers })
}

async function fetchWeChatUser(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  const url = new URL(USERINFO_URL)
  url.searchParams.set("access_token", String(tokens.access_token))
  url.searchParams.set("openid", String(tokens.openid))
  url.searchParams.set("lang", "zh_CN")
  const response = await fetchImpl(url)
  const body = (await response.json()) as Record<string, unknown>
  if (!response.ok || typeof body.errcode === "number") {
    throw new Error("WeChat userinfo request failed", { cause: { status: response.status, errcode: body.errcode } })
  }
  return body
}

/**
 * WeChat sign-in (`type: "oauth"`, `checks: ["state"]`). The authorization request names the app as `appid` (give
 * `clientId` to the factory, or pass the factory itself and set `AUTH_WECHAT_ID`). The account id is the `unionid`
 * (as Auth.js maps it), or the `openid` when the app is not bound to an Open Platform account. WeChat returns no email.
 *
 * @example
 * ```ts
 * import WeChat from "gatehouse-auth/providers/wechat"
 * WeChat({ clientId: "<AppID>", clientSecret: "<AppSecret>", platformType: "WebsiteApp" })
 * ```
 */
export function WeChat<P extends WeChatProfile = WeChatProfile>(options: WeChatUserConfig<P> = {}): OAuthConfig<P> {
  const { platformType = "OfficialAccount", ...rest } = options
  const official = platformType === "OfficialAccount"
  return {
    id: "wechat",
    name: "WeChat",
    type: "oauth",
    checks: ["pkce", "state"],
    authorization: {
      url: official
        ? "https://open.weixin.qq.com/connect/oauth2/authorize"
        : "https://open.weixin.qq.com/connect/qrconnect",
      params: {
        scope: official ? "snsapi_userinfo" : "snsapi_login",
        ...(options.clientId ? { appid: options.clientId } : {}),
      },
    },
    token: { url: TOKEN_URL, conform: conformToken },
    userinfo: { url: USERINFO_URL, request: ({ tokens, fetch }) => fetchWeChatUser(tokens, fetch) },
    client: { token_endpoint_auth_method: "client_secret_post" },
    [customFetch]: wechatFetch as typeof fetch,
    profile(profile: P): User {
      return {
        id: profile.unionid ?? profile.openid,
        name: profile.nickname ?? null,
        email: null,
        image: profile.headimgurl ?? null,
      }
    },
    style: { brandColor: "#07c160", text: "#ffffff" },
    options: rest as OAuthUserConfig<P>,
  }
}

export default WeChat
