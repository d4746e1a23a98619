import {
  AuthError,
  CredentialsSignin,
  MissingSecretError,
  MissingSecret,
  isClientSafeError,
  AccessDenied,
} from "../../lib/errors"
import { decodeProtectedHeader } from "jose"

describe("errors", () => {
  it("carries type and kind", () => {
    const e = new CredentialsSignin()
    expect(e.type).toBe("CredentialsSignin")
    expect(e.kind).toBe("signIn")
    expect(e.code).toBe("credentials")
    expect(MissingSecretError).toBe(MissingSecret)
    expect(new MissingSecretError("x").type).toBe("MissingSecret")
    expect(isClientSafeError(new AccessDenied())).toBe(true)
    expect(isClientSafeError(new AuthError())).toBe(false)
    expect(typeof decodeProtectedHeader).toBe("function")
  })
})
