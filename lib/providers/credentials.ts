/** The credentials provider: sign in with whatever the user types, checked by your `authorize()`. */
import type { CredentialInput, CredentialsConfig } from "./types"

export type { CredentialInput, CredentialsConfig }

/** What you pass to {@link Credentials}. */
export type CredentialsUserConfig<C extends Record<string, CredentialInput>> = Partial<
  Omit<CredentialsConfig<C>, "type" | "options">
>

/**
 * Creates a credentials provider. `authorize(credentials, request)` returns the user, or `null` to reject; throw a
 * subclass of `CredentialsSignin` to choose the `code` shown in the URL. Without `authorize` the config throws
 * `MissingAuthorize` at construction.
 *
 * @example
 * ```ts
 * import Credentials from "gatehouse-auth/providers/credentials"
 * Credentials({
 *   credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
 *   authorize: async ({ username, password }) => (await checkPassword(username, password)) ?? null,
 * })
 * ```
 */
export function Credentials<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>(
  config: CredentialsUserConfig<C> = {},
): CredentialsConfig<C> {
  return {
    id: "credentials",
    name: "Credentials",
    type: "credentials",
    credentials: {} as C,
    // No default: a missing authorize() is a configuration error (MissingAuthorize), not a form that rejects everyone.
    authorize: undefined as unknown as CredentialsConfig<C>["authorize"],
    options: config,
  }
}

export default Credentials
