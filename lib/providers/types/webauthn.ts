/** The config of a WebAuthn (passkey) provider: the relying party, the ceremony options and the challenge store. */
import type { Awaitable } from "../../models"
import type { CommonProviderOptions } from "./common"
import type { CredentialInput } from "./credentials"

/** The relying party: its id(s) (a registrable domain), display name, and the origin(s) allowed in clientDataJSON. */
export interface RelyingParty {
  id: string | string[]
  name: string
  origin: string | string[]
  /**
   * The top-level origins (`scheme://host[:port]`) allowed to run a ceremony inside a cross-origin iframe. Without it,
   * an assertion or attestation whose client data says `crossOrigin: true` is refused; with it, one is accepted only
   * when its `topOrigin` is in the list (a browser that does not send `topOrigin` is refused).
   */
  allowCrossOrigin?: string | string[]
}

/** Where single-use challenge hashes live. Default: the adapter's verification-token methods. */
export interface ChallengeStore {
  /** Records `key` until `expires`. */
  set(key: string, expires: Date): Awaitable<void>
  /** Deletes `key` atomically; `true` only for the one caller that found it unexpired. */
  consume(key: string): Awaitable<boolean>
}

/** What `getUserInfo` answers: the user the ceremony is for, and whether it exists already. */
export type WebAuthnUserInfo = { user: { id?: string; email?: string | null; name?: string | null }; exists: boolean }

export interface WebAuthnConfig extends CommonProviderOptions {
  type: "webauthn"
  /** The relying party (Auth.js spelling); the first id and name are used for options, every origin and id verifies. */
  relayingParty?: Partial<RelyingParty>
  /** Alias of `relayingParty`. */
  relyingParty?: Partial<RelyingParty>
  /** Computes the relying party from the config (never from request headers). */
  getRelayingParty?: (options: { provider: WebAuthnConfig; authUrl?: URL }) => Partial<RelyingParty>
  /** Extra options of `generateAuthenticationOptions` (e.g. `timeout`, `userVerification`). */
  authenticationOptions?: Record<string, unknown>
  /** Extra options of `generateRegistrationOptions` (e.g. `authenticatorSelection`, `timeout`). */
  registrationOptions?: Record<string, unknown>
  /** Extra options of `verifyAuthenticationResponse` (e.g. `requireUserVerification`). */
  verifyAuthenticationOptions?: Record<string, unknown>
  /** Extra options of `verifyRegistrationResponse` (e.g. `requireUserVerification`). */
  verifyRegistrationOptions?: Record<string, unknown>
  /** Fields of the sign-in form; `email` carries `autocomplete: "username webauthn"`. */
  formFields: Record<string, CredentialInput>
  /** Start conditional UI (autofill) on the built-in page. */
  enableConditionalUI: boolean
  /** Finds the user an options request is for when nobody is signed in (default: `email` from query/body). */
  getUserInfo?: (
    options: { provider: WebAuthnConfig; adapter: unknown },
    request: { method: string; query: Record<string, string>; body?: Record<string, unknown> },
  ) => Awaitable<WebAuthnUserInfo | null>
  /**
   * When nobody is signed in, list the credentials of the user an `email` names in `allowCredentials` (Auth.js;
   * `webauthn` default). `passkey` sets false: the answer then never hints at which credentials an email has.
   */
  listCredentialsByEmail?: boolean
  /** Whether an unknown email may register a new user with a passkey (default true). */
  allowSignUp?: boolean
  /** `"stable"`: one user handle per user (HMAC of the id); `"random"`: a new one per registration (Auth.js). */
  userHandle?: "stable" | "random"
  /** Where challenge hashes are kept (default: the adapter's verification tokens). */
  challengeStore?: ChallengeStore
  /** What a counter regression does besides rejecting: `"disable"` also deletes the credential. */
  onCounterRegression?: "reject" | "disable"
  /** Accepted for Auth.js compatibility and ignored: the built-in page loads no third-party script. */
  simpleWebAuthnBrowserVersion?: string | false
  options?: Partial<Omit<WebAuthnConfig, "options" | "type">>
}
