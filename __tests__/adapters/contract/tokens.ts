// Contract cases for verification tokens: single use, atomic under concurrency, bound to their identifier.
import { aToken, uid } from "./fixtures"
import type { ContractContext } from "./fixtures"

export function tokenCases(ctx: ContractContext): void {
  describe("verification tokens", () => {
    it("createVerificationToken returns the token", async () => {
      const input = aToken()
      expect(await ctx.adapter().createVerificationToken(input)).toEqual(input)
    })

    it("useVerificationToken returns the token with a Date expiry", async () => {
      const input = aToken()
      await ctx.adapter().createVerificationToken(input)
      const used = await ctx.adapter().useVerificationToken({ identifier: input.identifier, token: input.token })
      expect(used).toEqual(input)
      expect(used?.expires).toBeInstanceOf(Date)
    })

    it("a token can be used only once", async () => {
      const input = aToken()
      await ctx.adapter().createVerificationToken(input)
      await ctx.adapter().useVerificationToken(input)
      await expect(ctx.adapter().useVerificationToken(input)).resolves.toBeNull()
    })

    it("an unknown token returns null", async () => {
      await expect(
        ctx.adapter().useVerificationToken({ identifier: "a@example.com", token: uid() }),
      ).resolves.toBeNull()
    })

    it("a wrong token returns null and does not consume the right one", async () => {
      const input = aToken()
      await ctx.adapter().createVerificationToken(input)
      await expect(ctx.adapter().useVerificationToken({ ...input, token: input.token + "0" })).resolves.toBeNull()
      expect(await ctx.adapter().useVerificationToken(input)).toEqual(input)
    })

    it("a token issued for identifier A never matches identifier B", async () => {
      const input = aToken()
      await ctx.adapter().createVerificationToken(input)
      const other = { identifier: `other-${uid()}@example.com`, token: input.token }
      await expect(ctx.adapter().useVerificationToken(other)).resolves.toBeNull()
      expect(await ctx.adapter().useVerificationToken(input)).toEqual(input)
    })

    it("identifier matching is exact (the core normalises the email)", async () => {
      const input = aToken({ identifier: `case-${uid()}@example.com` })
      await ctx.adapter().createVerificationToken(input)
      await expect(
        ctx.adapter().useVerificationToken({ identifier: input.identifier.toUpperCase(), token: input.token }),
      ).resolves.toBeNull()
      expect(await ctx.adapter().useVerificationToken(input)).toEqual(input)
    })

    it("20 concurrent uses of one token: exactly one gets it", async () => {
      const input = aToken()
      await ctx.adapter().createVerificationToken(input)
      const results = await Promise.all(
        Array.from({ length: 20 }, () => ctx.adapter().useVerificationToken({ ...input })),
      )
      const winners = results.filter((r) => r !== null)
      expect(winners).toEqual([input])
    })

    it("two tokens for the same identifier are used independently", async () => {
      const first = aToken()
      const second = aToken({ identifier: first.identifier })
      await ctx.adapter().createVerificationToken(first)
      await ctx.adapter().createVerificationToken(second)
      expect(await ctx.adapter().useVerificationToken(first)).toEqual(first)
      expect(await ctx.adapter().useVerificationToken(second)).toEqual(second)
    })

    it("separators inside identifier and token never make two tokens collide", async () => {
      const suffix = uid()
      const a = aToken({ identifier: `a:b-${suffix}`, token: "c" })
      await ctx.adapter().createVerificationToken(a)
      await expect(ctx.adapter().useVerificationToken({ identifier: "a", token: `b-${suffix}:c` })).resolves.toBeNull()
      expect(await ctx.adapter().useVerificationToken(a)).toEqual(a)
    })

    it("unicode identifiers work", async () => {
      const input = aToken({ identifier: `josé.müller-${uid()}@bücher.example` })
      await ctx.adapter().createVerificationToken(input)
      expect(await ctx.adapter().useVerificationToken(input)).toEqual(input)
    })

    it("expiry round-trips to the millisecond", async () => {
      const input = aToken({ expires: new Date(Date.now() + 86_400_000 + 7) })
      await ctx.adapter().createVerificationToken(input)
      const used = await ctx.adapter().useVerificationToken(input)
      expect(used?.expires.getTime()).toBe(input.expires.getTime())
    })

    it("an expired token is returned and deleted (the core checks expiry), or already gone (TTL stores)", async () => {
      const input = aToken({ expires: new Date(Date.now() - 60_000) })
      await ctx.adapter().createVerificationToken(input)
      const used = await ctx.adapter().useVerificationToken(input)
      if (ctx.expiresByTTL) expect(used).toBeNull()
      else expect(used).toEqual(input)
      await expect(ctx.adapter().useVerificationToken(input)).resolves.toBeNull()
    })
  })
}
