// The two-factor primitives: RFC 6238 Appendix B vectors, the ±1 step window, base32, the sealed secret (bound to the
// user, rotation-aware) and backup codes (keyed hashes, normalisation).
import {
  base32Decode,
  base32Encode,
  matchTotpStep,
  normalizeTotpInput,
  totpCode,
} from "../../../lib/core/methods/two-factor/totp"
import { newTotpSecret, openTotpSecret, sealTotpSecret } from "../../../lib/core/methods/two-factor/secret"
import { matchBackupCode, newBackupCodes, normalizeBackupCode } from "../../../lib/core/methods/two-factor/backup-codes"

const seed = Buffer.from("12345678901234567890")

describe("TOTP (RFC 6238 Appendix B, SHA-1, last 6 digits)", () => {
  it.each([
    [59, "287082"],
    [1111111109, "081804"],
    [1111111111, "050471"],
    [1234567890, "005924"],
    [2000000000, "279037"],
    [20000000000, "353130"],
  ])("T=%d → %s", (t, code) => {
    expect(totpCode(seed, t)).toBe(code)
  })

  it("base32 of the seed is the RFC's, and decodes back", () => {
    expect(base32Encode(seed)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    expect(base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").equals(seed)).toBe(true)
    const random = newTotpSecret()
    expect(base32Encode(random)).toMatch(/^[A-Z2-7]{32}$/)
    expect(base32Decode(base32Encode(random)).equals(random)).toBe(true)
  })

  it("accepts the steps now−1, now, now+1 and nothing further", () => {
    const t = 1111111111
    const step = Math.floor(t / 30)
    expect(matchTotpStep(seed, totpCode(seed, t - 30), t)).toBe(step - 1)
    expect(matchTotpStep(seed, totpCode(seed, t), t)).toBe(step)
    expect(matchTotpStep(seed, totpCode(seed, t + 30), t)).toBe(step + 1)
    expect(matchTotpStep(seed, totpCode(seed, t + 60), t)).toBeNull()
    expect(matchTotpStep(seed, totpCode(seed, t - 60), t)).toBeNull()
  })

  it("input: spaces removed, anything but 6 digits refused", () => {
    expect(normalizeTotpInput("287 082")).toBe("287082")
    expect(normalizeTotpInput("28708")).toBeNull()
    expect(normalizeTotpInput("2870821")).toBeNull()
    expect(normalizeTotpInput("28708a")).toBeNull()
    expect(normalizeTotpInput(287082)).toBeNull()
    expect(normalizeTotpInput(["287082"])).toBeNull()
  })
})

describe("the sealed secret", () => {
  it("round-trips for its user, with gh1. and no raw secret in the stored form", async () => {
    const raw = newTotpSecret()
    const stored = await sealTotpSecret(raw, "user-1", ["s-new-000000000000000000000000000000"])
    expect(stored.startsWith("gh1.")).toBe(true)
    expect(stored).not.toContain(base32Encode(raw))
    const opened = await openTotpSecret(stored, "user-1", ["s-new-000000000000000000000000000000"])
    expect(opened).toEqual({ ok: true, raw, rotated: false })
  })

  it("refuses another user's row, an unknown key and a tampered row", async () => {
    const raw = newTotpSecret()
    const stored = await sealTotpSecret(raw, "user-1", ["secret-a-0000000000000000000000000"])
    expect((await openTotpSecret(stored, "user-2", ["secret-a-0000000000000000000000000"])).ok).toBe(false)
    expect((await openTotpSecret(stored, "user-1", ["secret-b-0000000000000000000000000"])).ok).toBe(false)
    const tampered = stored.slice(0, -3) + (stored.endsWith("AAA") ? "BBB" : "AAA")
    expect((await openTotpSecret(tampered, "user-1", ["secret-a-0000000000000000000000000"])).ok).toBe(false)
    expect((await openTotpSecret("plain", "user-1", ["secret-a-0000000000000000000000000"])).ok).toBe(false)
  })

  it("a row sealed under an older secret opens and is marked for re-encryption", async () => {
    const raw = newTotpSecret()
    const stored = await sealTotpSecret(raw, "user-1", ["old-secret-00000000000000000000000"])
    const opened = await openTotpSecret(stored, "user-1", [
      "new-secret-00000000000000000000000",
      "old-secret-00000000000000000000000",
    ])
    expect(opened).toEqual({ ok: true, raw, rotated: true })
  })
})

describe("backup codes", () => {
  const secrets = ["backup-secret-0000000000000000000000"]

  it("10 distinct codes xxxxx-xxxxx, stored only as hashes that hold neither form of the code", () => {
    const { codes, hashes } = newBackupCodes("u1", secrets)
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
    const joined = hashes.join()
    for (const code of codes) {
      expect(joined).not.toContain(code)
      expect(joined).not.toContain(code.replace("-", ""))
    }
  })

  it("matches after normalisation, under any configured secret; used entries never match", () => {
    const { codes, hashes } = newBackupCodes("u1", secrets)
    const code = normalizeBackupCode(codes[3]!.toUpperCase())!
    expect(matchBackupCode(hashes, code, "u1", secrets)).toBe(3)
    expect(matchBackupCode(hashes, code, "u1", ["newer-000000000000000000000000000", ...secrets])).toBe(3)
    expect(matchBackupCode(hashes, code, "u2", secrets)).toBe(-1)
    const used = hashes.map((h, i) => (i === 3 ? null : h))
    expect(matchBackupCode(used, code, "u1", secrets)).toBe(-1)
  })

  it("normalises i/l to 1 and o to 0, drops spaces and dashes, refuses other shapes", () => {
    expect(normalizeBackupCode("abcde-fghIL")).toBe("abcdefgh11")
    expect(normalizeBackupCode("0O0o0 00000")).toBe("0000000000")
    expect(normalizeBackupCode("abcde-fghj")).toBeNull()
    expect(normalizeBackupCode("abcde-fghju!")).toBeNull()
    expect(normalizeBackupCode(12345)).toBeNull()
  })
})
