/** Loads the optional peer `@simplewebauthn/server` once, with a clear error when it is not installed. */
import type * as SimpleWebAuthnModule from "@simplewebauthn/server"
import { InvalidConfig } from "../errors"

type SimpleWebAuthnServer = typeof SimpleWebAuthnModule

let loaded: Promise<SimpleWebAuthnServer> | undefined

/**
 * The `@simplewebauthn/server` module (>= 13), imported on first use.
 *
 * @throws InvalidConfig when the package is missing (the message says what to install).
 * @example
 * ```ts
 * const { verifyAuthenticationResponse } = await simpleWebAuthn()
 * ```
 */
export function simpleWebAuthn(): Promise<SimpleWebAuthnServer> {
  loaded ??= import("@simplewebauthn/server").catch((error: unknown) => {
    loaded = undefined
    throw new InvalidConfig("WebAuthn needs the @simplewebauthn/server package: npm install @simplewebauthn/server", {
      cause: error instanceof Error ? { err: error } : {},
    })
  })
  return loaded
}
