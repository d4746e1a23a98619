import { randomToken } from "../../lib/core/kernel/secrets"

describe("randomToken (pooled CSPRNG bytes)", () => {
  it("hands out each byte once: 1,000 tokens across several pool refills are all distinct 64-hex strings", () => {
    const tokens = Array.from({ length: 1000 }, () => randomToken())
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(new Set(tokens).size).toBe(tokens.length)
  })

  it("any size: pooled up to 256 bytes, drawn directly above", () => {
    for (const bytes of [1, 16, 31, 33, 255, 256, 257, 4096]) expect(randomToken(bytes)).toHaveLength(bytes * 2)
  })

  it("a bad size is an error, as from randomBytes", () => {
    // Node's own errors (another realm than jest's globals, so matched by code).
    for (const bad of [-1, Number.NaN]) {
      expect(() => randomToken(bad)).toThrow(expect.objectContaining({ code: "ERR_OUT_OF_RANGE" }) as unknown as Error)
    }
  })
})
