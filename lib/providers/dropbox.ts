/** Dropbox (OAuth 2); the account comes from the POST-only `users/get_current_account` RPC endpoint. */
import type { Profile, User } from "../models"
import type { OAuthConfig, OAuthUserConfig, TokenSet } from "./types"

/** The account as `POST /2/users/get_current_account` returns it (common fields). */
export interface DropboxProfile {
  /** e.g. `dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc` */
  account_id: string
  name: {
    given_name: string
    surname: string
    familiar_name: string
    display_name: string
    abbreviated_name: string
  }
  email: string
  email_verified: boolean
  disabled?: boolean
  profile_photo_url?: string
  country?: string
  locale?: string
  [field: string]: unknown
}

const accountUrl = "https://api.dropboxapi.com/2/users/get_current_account"

/**
 * Dropbox sign-in (`type: "oauth"`), scope `account_info.read`.
 *
 * @example
 * ```ts
 * import Dropbox from "gatehouse-auth/providers/dropbox"
 * Dropbox({ clientId: "<app key>", clientSecret: "<app secret>" })
 * ```
 */
export function Dropbox<P extends DropboxProfile = DropboxProfile>(options: OAuthUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "dropbox",
    name: "Dropbox",
    type: "oauth",
    authorization: {
      url: "https://www.dropbox.com/oauth2/authorize",
      params: { scope: "account_info.read", token_access_type: "offline" },
    },
    token: "https://api.dropboxapi.com/oauth2/token",
    userinfo: {
      url: accountUrl,
      request: ({ tokens, fetch }) => fetchDropboxAccount(tokens, fetch),
    },
    profile(profile: P): User {
      return {
        id: profile.account_id,
        name: profile.name?.display_name ?? null,
        email: profile.email ?? null,
        image: profile.profile_photo_url ?? null,
      }
    },
    style: { brandColor: "#0061fe" },
    options,
  }
}

async function fetchDropboxAccount(tokens: TokenSet, fetchImpl: typeof fetch): Promise<Profile> {
  // An RPC endpoint without arguments: POST with no body (and so no Content-Type).
  const response = await fetchImpl(accountUrl, {
    method: "POST",
    headers: { Authorization: `Bearer ${tokens.access_token}` },
  })
  if (!response.ok) throw new Error("Dropbox account request failed", { cause: { status: response.status } })
  return (await response.json()) as Record<string, unknown>
}

export default Dropbox
