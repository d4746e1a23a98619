/** The config of a credentials provider: the form's inputs and `authorize`. */
import type { Awaitable, User } from "../../models"
import type { CommonProviderOptions } from "./common"

/** One input of the credentials form; every property is spread onto the `<input>` element. */
export interface CredentialInput {
  label?: string
  type?: string
  placeholder?: string
  [attribute: string]: unknown
}

export interface CredentialsConfig<
  C extends Record<string, CredentialInput> = Record<string, CredentialInput>,
> extends CommonProviderOptions {
  type: "credentials"
  credentials: C
  /**
   * Checks the submitted credentials. Return the user, or `null` to fail with `CredentialsSignin`; throw a subclass of
   * `CredentialsSignin` to choose the `code` in the URL.
   */
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>
  options?: Partial<CredentialsConfig<C>>
}
