/** Configuration errors: a setting that is missing or invalid, raised when the config is resolved or first used. */

import type { ErrorType } from "../error-codes"
import { AuthError } from "./base"

/** A configuration value is invalid (Gatehouse-specific: shapes the reference does not check). */
export class InvalidConfig extends AuthError {
  static override type: ErrorType = "InvalidConfig"
}

/** An OAuth provider has neither an issuer nor the endpoint named in the message. */
export class InvalidEndpoints extends AuthError {
  static override type: ErrorType = "InvalidEndpoints"
}

/** A feature needs an adapter and none is configured. */
export class MissingAdapter extends AuthError {
  static override type: ErrorType = "MissingAdapter"
}

/** The adapter lacks methods a feature needs. */
export class MissingAdapterMethods extends AuthError {
  static override type: ErrorType = "MissingAdapterMethods"
}

/** A credentials provider has no `authorize` function. */
export class MissingAuthorize extends AuthError {
  static override type: ErrorType = "MissingAuthorize"
}

/** No secret is configured. */
export class MissingSecret extends AuthError {
  static override type: ErrorType = "MissingSecret"
}

/** The name the interface spec uses for {@link MissingSecret}; same class, `type` stays `MissingSecret`. */
export const MissingSecretError = MissingSecret

export type MissingSecretError = MissingSecret
