// The adapter contract: one suite every adapter passes (users, accounts, sessions, tokens, authenticators).
import type { FullAdapter } from "./contract/fixtures"
import { userCases } from "./contract/users"
import { accountCases } from "./contract/accounts"
import { sessionCases } from "./contract/sessions"
import { sessionManagementCases } from "./contract/session-management"
import { idpSessionCases } from "./contract/idp-sessions"
import { tokenCases } from "./contract/tokens"
import { authenticatorCases } from "./contract/authenticators"
import { passkeyCases } from "./contract/passkeys"
import { twoFactorCases } from "./contract/two-factor"
import { passwordCases } from "./contract/passwords"

export type { FullAdapter } from "./contract/fixtures"

/** What a suite's setup hands to the contract. */
export interface ContractSetup {
  adapter: FullAdapter
  teardown: () => Promise<void>
}

/** Options of {@link runAdapterContract}. */
export interface ContractOptions {
  /** The store drops sessions and tokens at `expires` (Redis TTLs): expired ones read as not found. */
  expiresByTTL?: boolean
}

/**
 * Runs the contract against one adapter. `setup` runs once before the cases (every case uses fresh random ids), and
 * `teardown` once after.
 */
export function runAdapterContract(
  name: string,
  setup: () => Promise<ContractSetup>,
  options: ContractOptions = {},
): void {
  describe(`${name} adapter contract`, () => {
    let current: ContractSetup | undefined
    const ctx = {
      adapter: (): FullAdapter => {
        if (!current) throw new Error("adapter setup did not run")
        return current.adapter
      },
      expiresByTTL: options.expiresByTTL ?? false,
    }
    beforeAll(async () => {
      current = await setup()
    })
    afterAll(async () => {
      await current?.teardown()
    })

    it("implements every method of the Adapter contract", () => {
      const methods = [
        "createUser",
        "getUser",
        "getUserByEmail",
        "getUserByAccount",
        "updateUser",
        "deleteUser",
        "linkAccount",
        "unlinkAccount",
        "getAccount",
        "createSession",
        "getSessionAndUser",
        "updateSession",
        "deleteSession",
        "listSessionsByUserId",
        "deleteSessions",
        "deleteSessionsByIdp",
        "createVerificationToken",
        "useVerificationToken",
        "getAuthenticator",
        "createAuthenticator",
        "listAuthenticatorsByUserId",
        "updateAuthenticatorCounter",
        "deleteAuthenticator",
        "updateAuthenticator",
        "getTwoFactor",
        "upsertTwoFactor",
        "updateTwoFactor",
        "deleteTwoFactor",
        "getPasswordAccount",
        "setPasswordHash",
      ] as const
      for (const method of methods) expect(typeof ctx.adapter()[method]).toBe("function")
    })

    userCases(ctx)
    accountCases(ctx)
    sessionCases(ctx)
    sessionManagementCases(ctx)
    idpSessionCases(ctx)
    tokenCases(ctx)
    authenticatorCases(ctx)
    passkeyCases(ctx)
    twoFactorCases(ctx)
    passwordCases(ctx)
  })
}
