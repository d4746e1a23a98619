/**
 * Provider types: the shapes of credentials, email, WebAuthn and OAuth/OIDC providers, with the option names of the
 * reference so that an Auth.js provider config ports unchanged. One module per kind of provider.
 */
import type { PasswordConfig } from "../../password/types"
import type { CredentialsConfig } from "./credentials"
import type { EmailConfig } from "./email"
import type { OAuthConfig } from "./oauth"
import type { WebAuthnConfig } from "./webauthn"

export type { PasswordConfig }
export type { ProviderStyle } from "./common"
export type * from "./credentials"
export type * from "./email"
export type * from "./webauthn"
export type * from "./oauth"

/** Any provider config. */
export type ProviderConfig = OAuthConfig<any> | EmailConfig | CredentialsConfig | WebAuthnConfig | PasswordConfig // eslint-disable-line @typescript-eslint/no-explicit-any

/** A provider as listed in `config.providers`: a config object, or a factory called with no options. */
export type Provider = ProviderConfig | ((options?: any) => ProviderConfig) // eslint-disable-line @typescript-eslint/no-explicit-any

export type { ProviderType, TokenSet } from "../../models"
