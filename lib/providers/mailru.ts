/** Mail.ru (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The answer of `GET https://oauth.mail.ru/userinfo`. */
export interface MailruProfile {
  id: string
  name?: string
  first_name?: string
  last_name?: string
  nickname?: string
  email?: string
  image?: string
  [field: string]: unknown
}

/** Options of {@link Mailru}. */
export type MailruUserConfig<P extends MailruProfile = MailruProfile> = OAuthUserConfig<P>

/**
 * Mail.ru sign-in (`type: "oauth"`), scope `userinfo`. The user is mapped as Auth.js maps a provider without its own
 * mapping: `id`, then `name` or `nickname`, `email`, and no image (Mail.ru names it `image`, not `picture`).
 *
 * @example
 * ```ts
 * import Mailru from "gatehouse-auth/providers/mailru"
 * Mailru({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Mailru<P extends MailruProfile = MailruProfile>(options: MailruUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "mailru",
    name: "Mail.ru",
    type: "oauth",
    authorization: "https://oauth.mail.ru/login?scope=userinfo",
    token: "https://oauth.mail.ru/token",
    userinfo: "https://oauth.mail.ru/userinfo",
    profile(profile: P): User {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.nickname ?? null,
        email: profile.email ?? null,
        image: null,
      }
    },
    style: { brandColor: "#005ff9", text: "#ffffff" },
    options,
  }
}

export default Mailru
