/** Figma (OAuth 2). */
import type { User } from "../models"
import type { OAuthConfig, OAuthUserConfig } from "./types"

/** The user as `GET https://api.figma.com/v1/me` returns it. */
export interface FigmaProfile {
  id: string
  handle: string
  email: string
  img_url?: string
  [field: string]: unknown
}

/** Options of {@link Figma}. */
export type FigmaUserConfig<P extends FigmaProfile = FigmaProfile> = OAuthUserConfig<P>

/**
 * Figma sign-in (`type: "oauth"`), scope `files:read`, with `state`.
 *
 * @example
 * ```ts
 * import Figma from "gatehouse-auth/providers/figma"
 * Figma({ clientId: "...", clientSecret: "..." })
 * ```
 */
export function Figma<P extends FigmaProfile = FigmaProfile>(options: FigmaUserConfig<P> = {}): OAuthConfig<P> {
  return {
    id: "figma",
    name: "Figma",
    type: "oauth",
    checks: ["pkce", "state"],
    authorization: { url: "https://www.figma.com/oauth", params: { scope: "files:read" } },
    token: "https://api.figma.com/v1/oauth/token",
    userinfo: "https://api.figma.com/v1/me",
    profile(profile: P): User {
      return {
        id: profile.id,
        name: profile.handle ?? null,
        email: profile.email ?? null,
        image: profile.img_url ?? null,
      }
    },
    style: { brandColor: "#ff7237", text: "#ffffff" },
    options,
  }
}

export default Figma
