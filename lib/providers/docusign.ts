/** DocuSign (OAuth 2, Authorization Code Grant), production or developer (demo) accounts. */
import { InvalidConfig } from "../errors"
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://account.docusign.com/oauth/userinfo`. */
export interface DocuSignProfile {
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  email?: string
  created?: string
  accounts?: { account_id: string; is_default: boolean; account_name: string; base_uri: string }[]
  [field: string]: unknown
}

/** Options of {@link DocuSign}: the usual OAuth options plus the environment. */
export type DocuSignUserConfig<P extends DocuSignProfile = DocuSignProfile> = OAuthUserConfig<P> & {
  /** `"production"` (default, `account.docusign.com`) or `"demo"` (`account-d.docusign.com`). */
  environment?: "production" | "demo"
}

/**
 * DocuSign sign-in (`type: "oauth"`), scope `signature`.
 *
 * @throws InvalidConfig for an `environment` other than `"production"` or `"demo"`.
 * @example
 * ```ts
 * import DocuSign from "gatehouse-auth/providers/docusign"
 * DocuSign({ clientId: "<integration key>", clientSecret: "<secret key>", environment: "demo" })
 * ```
 */
export function DocuSign<P extends DocuSignProfile = DocuSignProfile>(
  options: DocuSignUserConfig<P> = {},
): OAuthConfig<P> {
  const { environment = "production", ...rest } = options
  if (environment !== "production" && environment !== "demo") {
    throw new InvalidConfig("Unknown DocuSign environment", {
      code: "invalid_provider_option",
      cause: { provider: "docusign", option: "environment" },
    })
  }
  const host = environment === "demo" ? "https://account-d.docusign.com" : "https://account.docusign.com"
  return {
    id: "docusign",
    name: "DocuSign",
    type: "oauth",
    authorization: { url: `${host}/oauth/auth`, params: { scope: "signature" } },
    token: `${host}/oauth/token`,
    userinfo: `${host}/oauth/userinfo`,
    profile(profile: P): User {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { brandColor: "#4c00ff", text: "#ffffff" },
    options: rest as OAuthUserConfig<P>,
  }
}

export default DocuSign
