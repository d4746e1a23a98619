// Shapes shared by the built-in pages: the provider view they render and the page they return.
import type { CredentialInput, ProviderStyle, ProviderType } from "../../../providers/types"

/** A provider as the sign-in page sees it: the public fields plus the absolute URLs its forms post to. */
export interface PageProvider {
  id: string
  name: string
  type: ProviderType
  /** `<origin><basePath>/signin/<id>`: where OAuth and email forms post. */
  signinUrl: string
  /** `<origin><basePath>/callback/<id>`: where the credentials form posts. */
  callbackUrl: string
  style?: ProviderStyle
  /** Credentials providers: one input per key. */
  credentials?: Record<string, CredentialInput>
  /** Credentials providers: values to refill after a rejected sign-in (never a password field). */
  values?: Record<string, string>
  /** WebAuthn providers: the inputs of the form (`email` with `autocomplete: "username webauthn"`). */
  formFields?: Record<string, CredentialInput>
  /** WebAuthn providers: `<origin><basePath>/webauthn-options/<id>`. */
  webauthnOptionsUrl?: string
  /** WebAuthn providers: start conditional UI (autofill) on load. */
  enableConditionalUI?: boolean
}

/** A rendered page: the status to answer with and the complete HTML document. */
export interface RenderedPage {
  status: number
  html: string
}
