/** The WebAuthn provider: sign in (and sign up) with a security key or passkey, verified by @simplewebauthn/server. */
import type { ChallengeStore, RelyingParty, WebAuthnConfig, WebAuthnUserInfo } from "./types"

export type { ChallengeStore, RelyingParty, WebAuthnConfig, WebAuthnUserInfo }

/** What you pass to {@link WebAuthn} (the Auth.js option names; `relyingParty` is an alias of `relayingParty`). */
export type WebAuthnUserConfig = Partial<Omit<WebAuthnConfig, "type" | "options">>

/** Ceremony timeout of both ceremonies, in milliseconds (as Auth.js). */
export const DEFAULT_WEBAUTHN_TIMEOUT = 300_000

/**
 * Creates a WebAuthn provider. Needs `@simplewebauthn/server` (>= 13) installed and an adapter with authenticator
 * methods. The relying party comes from `relyingParty` or `AUTH_URL`, never from request headers. User verification
 * follows the options (`preferred`); use {@link Passkey} from `gatehouse-auth/providers/passkey` to require it.
 *
 * @example
 * ```ts
 * import WebAuthn from "gatehouse-auth/providers/webauthn"
 * WebAuthn({ relyingParty: { id: "app.example", name: "App", origin: "https://app.example" } })
 * ```
 */
export function WebAuthn(config: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    id: "webauthn",
    name: "WebAuthn",
    type: "webauthn",
    enableConditionalUI: true,
    allowSignUp: true,
    listCredentialsByEmail: true,
    userHandle: "stable",
    onCounterRegression: "reject",
    formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    registrationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT },
    // UV is "preferred" in the options, so it is not required when verifying (Passkey requires it).
    verifyAuthenticationOptions: { requireUserVerification: false },
    verifyRegistrationOptions: { requireUserVerification: false },
    options: config,
  }
}

export default WebAuthn
