import { EmailSignInError } from "../../../lib/errors"
import { normalizeEmail } from "../../../lib/core/kernel/email-address"
import { normalisedAddresses, rejectedAddresses } from "./corpus"

describe("normalizeEmail", () => {
  describe("reference 18.13 (test/email-normalizer.test.ts)", () => {
    it("lower-cases and trims", () => {
      expect(normalizeEmail("  Foo@Example.COM  ")).toBe("foo@example.com")
    })

    it("cuts a comma-joined second domain: foo@example.com,evil.com → foo@example.com", () => {
      expect(normalizeEmail("foo@example.com,evil.com")).toBe("foo@example.com")
    })

    it.each([
      ["empty", ""],
      ["undefined", undefined],
      ["null", null],
      ["a number", 42],
      ["an array of addresses", ["a@example.com", "b@evil.com"]],
    ])("throws EmailSignInError 'Missing email address' for %s", (_label, input) => {
      expect(() => normalizeEmail(input)).toThrow(EmailSignInError)
      expect(() => normalizeEmail(input)).toThrow("Missing email address")
    })

    it.each([
      ["quotes", '"foo"@example.com'],
      ["a quoted local part with @", '"foo@evil.com"@example.com'],
      ["multiple @", "foo@bar@example.com"],
      ["U+FF20 fullwidth @ making a second @", "foo@evil.com\uff20example.com"],
      ["U+FE6B small commercial at making a second @", "foo@evil.com\ufe6bexample.com"],
    ])("rejects %s with 'Invalid email address format.'", (_label, input) => {
      expect(() => normalizeEmail(input)).toThrow(new EmailSignInError("Invalid email address format."))
    })
  })

  describe("security-checklist 3.7 corpus", () => {
    it.each(rejectedAddresses)("rejects %s", (_label, input) => {
      expect(() => normalizeEmail(input)).toThrow(EmailSignInError)
    })

    it.each(normalisedAddresses)("normalises %s", (_label, input, expected) => {
      expect(normalizeEmail(input)).toBe(expected)
    })
  })

  it("normalises NFKC before it checks: the checks see the normalised form", () => {
    // U+FF0C (fullwidth comma) becomes a comma, and the domain is cut there.
    expect(normalizeEmail("ada@example.test\uff0cevil.test")).toBe("ada@example.test")
    // U+FF1C/U+FF1E (fullwidth angle brackets) become < >, which are rejected.
    expect(() => normalizeEmail("\uff1cada@example.test\uff1e")).toThrow(EmailSignInError)
  })

  it("is idempotent on everything it accepts", () => {
    for (const [, input] of normalisedAddresses) {
      const once = normalizeEmail(input)
      expect(normalizeEmail(once)).toBe(once)
    }
  })

  it("accepts the longest local part (64) and rejects 65", () => {
    expect(normalizeEmail(`${"a".repeat(64)}@example.test`)).toBe(`${"a".repeat(64)}@example.test`)
    expect(() => normalizeEmail(`${"a".repeat(65)}@example.test`)).toThrow(EmailSignInError)
  })
})
