/** The Passkey provider: WebAuthn with discoverable credentials and user verification required on both ceremonies. */
import { DEFAULT_WEBAUTHN_TIMEOUT, type WebAuthnUserConfig } from "./webauthn"
import type { WebAuthnConfig } from "./types"

export type { WebAuthnConfig, WebAuthnUserConfig }

/**
 * Creates the `passkey` provider: `residentKey` and `userVerification` required, `requireUserVerification: true` when
 * verifying, `allowCredentials: []` when nobody is signed in. Takes the same options as `WebAuthn`.
 *
 * @example
 * ```ts
 * import Passkey from "gatehouse-auth/providers/passkey"
 * app.use("/auth", ExpressAuth({ adapter, providers: [Passkey({ relyingParty: { name: "App" } })] }))
 * ```
 */
export function Passkey(config: WebAuthnUserConfig = {}): WebAuthnConfig {
  return {
    id: "passkey",
    name: "Passkey",
    type: "webauthn",
    enableConditionalUI: true,
    allowSignUp: true,
    listCredentialsByEmail: false,
    userHandle: "stable",
    onCounterRegression: "reject",
    formFields: { email: { label: "Email", required: true, autocomplete: "username webauthn" } },
    authenticationOptions: { timeout: DEFAULT_WEBAUTHN_TIMEOUT, userVerification: "required" },
    registrationOptions: {
      timeout: DEFAULT_WEBAUTHN_TIMEOUT,
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    },
    verifyAuthenticationOptions: { requireUserVerification: true },
    verifyRegistrationOptions: { requireUserVerification: true },
    options: config,
  }
}

export default Passkey
