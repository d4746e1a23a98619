/** The OAuth 2 / OpenID Connect engine: provider normalization, sign-in start and callback. */
export { normalizeOAuthProvider, defaultProfile, defaultAccount, DEFAULT_SCOPE } from "./normalize"
export { liftSecurityProfile } from "./security"
export { dpopAccess, type DPoPAccess } from "./dpop"
export { startOAuthSignIn, redirectUriOf } from "./authorization-url"
export { finishOAuthSignIn } from "./callback"
export { stableUserId } from "./profile"
export { CHECK_MAX_AGE, STATE_SALT } from "./checks"
export type { CheckCookie, OAuthFlowContext, OAuthSignInResult, ResolvedCheck, ResolvedOAuthProvider } from "./types"
export { endSessionEndpointOf, verifyLogoutToken, LogoutTokenError, type LogoutClaims } from "./logout"
export { engineError } from "./engine-error"
export type { IdpRecord, ResolvedOidcLogout } from "./types"
export {
  refreshGrant,
  subjectOfIdToken,
  RefreshGrantError,
  type RefreshGrantFailure,
  type RefreshSubject,
} from "./refresh"
