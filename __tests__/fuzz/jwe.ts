/**
 * Fuzz properties of the session JWE (lib/jwt/jwe.ts): random and mutated tokens never decode; random payloads,
 * secrets and salts round-trip between `encode`/`decode` and `jose` both ways; and any mutation of a valid token is
 * refused. Shared by the jest slice and `npm run fuzz` through parserProperties().
 */
import assert from "node:assert/strict"
import fc from "fast-check"
import { EncryptJWT, jwtDecrypt } from "jose"
import { decode, encode } from "../../lib/jwt"
import { deriveKey } from "../../lib/jwt/keys"
import { anyText } from "./arbitraries"
import type { FuzzProperty } from "./parsers"

const SECRET = "parser-fuzz-secret-00112233445566778899aabb"
const SALT = "authjs.session-token"
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

type Mutation =
  | { kind: "char"; at: number; char: string }
  | { kind: "byte"; segment: number; at: number; mask: number }
  | { kind: "cut"; at: number }
  | { kind: "insert"; at: number; char: string }
  | { kind: "swap"; a: number; b: number }

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("char" as const), at: fc.nat(), char: fc.constantFrom(...`${ALPHABET}.=+/ %`) }),
  fc.record({
    kind: fc.constant("byte" as const),
    segment: fc.constantFrom(0, 2, 3, 4),
    at: fc.nat(),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), char: fc.constantFrom(...`${ALPHABET}.=`) }),
  fc.record({ kind: fc.constant("swap" as const), a: fc.nat(4), b: fc.nat(4) }),
)

function mutate(token: string, mutation: Mutation): string {
  switch (mutation.kind) {
    case "char": {
      const at = mutation.at % token.length
      return token.slice(0, at) + mutation.char + token.slice(at + 1)
    }
    case "byte": {
      const parts = token.split(".")
      const bytes = Buffer.from(parts[mutation.segment]!, "base64url")
      if (bytes.length === 0) return token
      bytes[mutation.at % bytes.length]! ^= mutation.mask
      parts[mutation.segment] = bytes.toString("base64url")
      return parts.join(".")
    }
    case "cut":
      return token.slice(0, mutation.at % token.length)
    case "insert": {
      const at = mutation.at % (token.length + 1)
      return token.slice(0, at) + mutation.char + token.slice(at)
    }
    case "swap": {
      const parts = token.split(".")
      ;[parts[mutation.a], parts[mutation.b]] = [parts[mutation.b]!, parts[mutation.a]!]
      return parts.join(".")
    }
  }
}

// Claims the encoder or the decoder sets or checks are left out of the random payload: they would not round-trip.
const RESERVED = new Set(["iat", "exp", "nbf", "jti"])
const payloadArb = fc
  .dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "sub", "name", "")), fc.jsonValue(), {
    maxKeys: 8,
  })
  .map((d) => Object.fromEntries(Object.entries(d).filter(([k]) => !RESERVED.has(k))))

const claimsOf = ({ iat: _i, exp: _e, jti: _j, ...rest }: Record<string, unknown>) => JSON.stringify(rest)

export function jweProperties(): FuzzProperty[] {
  return [
    {
      name: "JWE decoder: random and mutated tokens never decode to a payload; intact ones round-trip",
      weight: 0.4,
      property: () =>
        fc.asyncProperty(
          fc.record({
            sub: fc.string({ maxLength: 30 }),
            mutation: fc.oneof(
              fc.constant({ kind: "none" as const }),
              mutationArb,
              fc.record({ kind: fc.constant("random" as const), text: anyText }),
              fc.record({ kind: fc.constant("segments" as const), parts: fc.array(anyText, { maxLength: 6 }) }),
            ),
          }) as fc.Arbitrary<unknown>,
          async (value) => {
            const { sub, mutation } = value as {
              sub: string
              mutation:
                Mutation | { kind: "none" } | { kind: "random"; text: string } | { kind: "segments"; parts: string[] }
            }
            const token = await encode({ token: { sub }, secret: SECRET, salt: SALT })
            const mutated =
              mutation.kind === "none"
                ? token
                : mutation.kind === "random"
                  ? mutation.text
                  : mutation.kind === "segments"
                    ? mutation.parts.join(".")
                    : mutate(token, mutation)
            const decoded = await decode({ token: mutated, secret: SECRET, salt: SALT })
            // Strict: a token has one spelling, so any change at all (unused base64url bits included) is refused.
            if (mutated === token) assert.equal(decoded?.sub, sub)
            else assert.equal(decoded, null, "a changed token decoded")
          },
        ),
    },
    {
      name: "session JWE vs jose: random payloads, secrets and salts round-trip both ways; any mutation is refused",
      weight: 0.4,
      property: () =>
        fc.asyncProperty(
          fc.record({
            payload: payloadArb,
            secrets: fc.array(fc.string({ minLength: 1, maxLength: 48 }), { minLength: 1, maxLength: 3 }),
            salt: fc.oneof(
              fc.constantFrom("authjs.session-token", "__Secure-authjs.session-token", "authjs.state"),
              fc.string({ minLength: 1, maxLength: 40 }),
            ),
            mutation: mutationArb,
          }) as fc.Arbitrary<unknown>,
          async (value) => {
            const { payload, secrets, salt, mutation } = value as {
              payload: Record<string, unknown>
              secrets: string[]
              salt: string
              mutation: Mutation
            }
            const expected = claimsOf(JSON.parse(JSON.stringify(payload)) as Record<string, unknown>)
            const { key, kid } = await deriveKey(secrets[0]!, salt, "A256CBC-HS512")
            const options = { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256CBC-HS512"] }

            // new encode -> jose decode
            const ours = await encode({ token: payload, secret: secrets, salt })
            const opened = await jwtDecrypt(ours, key, options)
            assert.deepEqual(opened.protectedHeader, { alg: "dir", enc: "A256CBC-HS512", kid })
            assert.equal(claimsOf(opened.payload), expected)

            // jose encode -> new decode
            const theirs = await new EncryptJWT({ ...payload })
              .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid })
              .setIssuedAt()
              .setExpirationTime("1h")
              .encrypt(key)
            const decoded = await decode({ token: theirs, secret: secrets, salt })
            assert.ok(decoded, "a jose token did not decode")
            assert.equal(claimsOf(decoded), expected)

            // any mutation is refused
            for (const token of [ours, theirs]) {
              const mutated = mutate(token, mutation)
              if (mutated !== token) {
                assert.equal(await decode({ token: mutated, secret: secrets, salt }), null, "a mutated token decoded")
              }
            }
          },
        ),
    },
  ]
}
