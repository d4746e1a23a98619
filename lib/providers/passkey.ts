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
    // Labelled apart from an email sign-in field on the same page (a magic link form also asks for "Email").
    formFields: {
      email: {
        label: "Email for your passkey",
        required: true,
        autocomplete: "username webauthn",
        placeholder: "email@example.com",
      },
    },
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
