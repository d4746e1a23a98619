/**
 * Parser-level fuzz properties, each with its own invariants: the cookie reader, the chunked-cookie reader, the JWE
 * decoder (./jwe.ts), the form/JSON body readers (core and Express), the redirect validator and the email normaliser.
 * Shared by the jest slice and `npm run fuzz`.
 */
import assert from "node:assert/strict"
import type { IncomingMessage } from "node:http"
import fc from "fast-check"
import { parseCookieHeader, readSessionCookie } from "../../lib/cookie-header"
import { normalizeEmail } from "../../lib/core/kernel/email-address"
import { isValidCallbackUrl, sameOriginRedirect } from "../../lib/core/kernel/redirect"
import { parseAuthRequest } from "../../lib/core/kernel/request"
import { EmailSignInError, InvalidRequest, UnknownAction } from "../../lib/errors"
import { readRequestBody } from "../../lib/express/body"
import { anyText, bodyArb, encode as percentEncode, interesting } from "./arbitraries"
import { jweProperties } from "./jwe"

export interface FuzzProperty {
  name: string
  /** Share of a run's cases: the slice runs `weight * sliceRuns.parser` cases of this property. */
  weight: number
  property: () => fc.IAsyncProperty<[unknown]> | fc.IProperty<[unknown]>
}

const cookieName = fc.stringMatching(/^[A-Za-z0-9_.!#$&'*+^`|~-]{1,20}$/)
const cookieValue = fc.stringMatching(/^[A-Za-z0-9!#$&'()*+./:<>?@[\]^_`{|}~-]{0,40}$/)

const ORIGIN = "https://app.example"

function asUnknown<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return arb as fc.Arbitrary<unknown>
}

function assertNoPollution(): void {
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted")
  assert.equal(Object.keys(Object.prototype).length, 0, "Object.prototype gained keys")
}

export function parserProperties(): FuzzProperty[] {
  return [
    {
      name: "cookie reader: any header parses without throwing into own, non-empty names",
      weight: 1,
      property: () =>
        fc.property(
          asUnknown(
            fc.oneof(
              anyText,
              fc.array(anyText).map((a) => a.join("; ")),
            ),
          ),
          (header) => {
            const parsed = parseCookieHeader(header as string)
            // No inherited key: the record's prototype is an empty object with no prototype of its own.
            const proto = Object.getPrototypeOf(parsed) as object
            assert.equal(Object.getPrototypeOf(proto), null)
            assert.equal(Reflect.ownKeys(proto).length, 0)
            for (const [name, value] of Object.entries(parsed)) {
              assert.ok(name.length > 0 && !name.includes(";") && !name.includes("="), `bad name ${name}`)
              assert.equal(typeof value, "string")
              assert.ok(!name.startsWith(" ") && !name.endsWith(" "))
            }
            assertNoPollution()
          },
        ),
    },
    {
      name: "cookie reader: serialised pairs read back, first of a duplicate name wins",
      weight: 1,
      property: () =>
        fc.property(
          asUnknown(fc.array(fc.tuple(fc.oneof(cookieName, fc.constant("__proto__")), cookieValue), { maxLength: 10 })),
          (value) => {
            const pairs = value as [string, string][]
            const header = pairs.map(([n, v]) => `${n}=${percentEncode(v)}`).join("; ")
            const parsed = parseCookieHeader(header)
            const expected = new Map<string, string>()
            for (const [n, v] of pairs) if (!expected.has(n)) expected.set(n, v)
            assert.deepEqual(new Map(Object.entries(parsed)), expected)
          },
        ),
    },
    {
      name: "chunk reader: chunks read back in order; gaps, mixes and junk give no value; never throws",
      weight: 1,
      property: () =>
        fc.property(
          asUnknown(
            fc.record({
              whole: fc.string({ minLength: 1, maxLength: 300 }),
              size: fc.integer({ min: 1, max: 50 }),
              order: fc.boolean(),
              damage: fc.constantFrom("none", "gap", "mix", "junk", "empty"),
              junk: fc.dictionary(fc.oneof(cookieName, fc.constantFrom("s.01", "s.-1", "s.+1", "s.1e1")), cookieValue),
            }),
          ),
          (value) => {
            const { whole, size, order, damage, junk } = value as {
              whole: string
              size: number
              order: boolean
              damage: string
              junk: Record<string, string>
            }
            const chunks: [string, string][] = []
            for (let i = 0; i * size < whole.length; i++) chunks.push([`s.${i}`, whole.slice(i * size, (i + 1) * size)])
            if (!order) chunks.reverse()
            const cookies: Record<string, string> = {}
            for (const [k, v] of Object.entries(junk)) if (k !== "s" && !/^s\.(?:0|[1-9]\d*)$/.test(k)) cookies[k] = v
            for (const [k, v] of chunks) cookies[k] = v
            const multi = chunks.length > 1
            if (damage === "gap" && multi) delete cookies["s.0"]
            if (damage === "mix") cookies.s = "x"
            if (damage === "empty" && multi) cookies["s.0"] = ""
            const read = readSessionCookie(cookies, "s")
            if (damage === "none" || damage === "junk" || !multi) {
              if (damage === "mix") assert.equal(read.value, undefined)
              else assert.equal(read.value, whole)
            } else {
              assert.equal(read.value, undefined, `damaged (${damage}) chunks gave a value`)
            }
            for (const name of Object.keys(cookies)) {
              if (name === "s" || /^s\.(?:0|[1-9]\d{0,3})$/.test(name)) assert.ok(read.present.includes(name))
            }
          },
        ),
    },
    ...jweProperties(),
    {
      name: "core body reader: a plain own-keyed object, or InvalidRequest/UnknownAction; nothing polluted",
      weight: 1,
      property: () =>
        fc.asyncProperty(asUnknown(bodyArb(["x"])), async (value) => {
          const { contentType, body } = value as { contentType?: string; body?: string }
          const headers: Record<string, string> = {}
          if (contentType !== undefined) headers["content-type"] = contentType
          const request = new Request(`${ORIGIN}/auth/callback/credentials`, { method: "POST", headers, body })
          try {
            const parsed = await parseAuthRequest(request, "/auth")
            if (parsed.body !== undefined) {
              assert.ok(typeof parsed.body === "object" && parsed.body !== null && !Array.isArray(parsed.body))
              for (const key of Object.keys(parsed.body)) assert.equal(typeof key, "string")
            }
          } catch (error) {
            assert.ok(
              error instanceof InvalidRequest || error instanceof UnknownAction,
              `unexpected ${(error as Error).name}: ${(error as Error).message}`,
            )
          }
          assertNoPollution()
        }),
    },
    {
      name: "Express body reader: any parsed req.body re-encodes without throwing, and forms read back",
      weight: 0.6,
      property: () =>
        fc.asyncProperty(
          asUnknown(
            fc.record({
              body: fc.oneof(
                fc.jsonValue(),
                fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor")), fc.jsonValue()),
                fc.string(),
                fc.uint8Array({ maxLength: 50 }),
              ),
              type: fc.constantFrom(
                "application/json",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "text/plain",
                "application/vnd.api+json",
                undefined,
              ),
            }),
          ),
          async (value) => {
            const { body, type } = value as { body: unknown; type?: string }
            const req = {
              _body: true,
              body,
              headers: type ? { "content-type": type } : {},
            } as unknown as IncomingMessage
            const out = await readRequestBody(req, 1000)
            if (body === null || body === undefined) return assert.equal(out, null)
            assert.ok(out && out.bytes instanceof Uint8Array)
            const text = Buffer.from(out.bytes).toString("utf8")
            if (typeof body === "object" && !(body instanceof Uint8Array) && type?.includes("form")) {
              // Re-encoded as a form: it parses back, with every top-level field present.
              const params = new URLSearchParams(text)
              for (const key of Object.keys(body as object)) {
                const item = (body as Record<string, unknown>)[key]
                const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v)
                const kept = scalar(item) || (Array.isArray(item) && item.length > 0 && item.every(scalar))
                if (!kept) continue
                assert.ok(params.has(key), `form field ${key} lost`)
              }
            }
            assertNoPollution()
          },
        ),
    },
    {
      name: "redirect validator: the result is always on the base origin, never throws",
      weight: 1,
      property: () =>
        fc.property(
          asUnknown(
            fc.oneof(
              anyText,
              fc.webUrl(),
              fc.webPath(),
              fc.tuple(fc.constantFrom(...interesting.slice(29, 36)), fc.webPath()).map(([a, b]) => a + b),
              fc
                .tuple(fc.constantFrom("", "/", "//", "\\", "/\\", "\t/", "https:", "HTTPS://", "http:/"), anyText)
                .map(([a, b]) => a + b),
            ),
          ),
          (url) => {
            const result = sameOriginRedirect(url as string, ORIGIN)
            // What a browser would do with it: resolve it against the page it is on.
            const resolved = new URL(result, ORIGIN)
            assert.equal(resolved.origin, ORIGIN, `redirect ${JSON.stringify(url)} -> ${result}`)
            assert.equal(resolved.username + resolved.password, "")
            assert.ok(!/[\t\n\r]/.test(result) || !result.startsWith("/"), "control characters kept in a path")
            const valid = isValidCallbackUrl(url as string, ORIGIN)
            assert.equal(typeof valid, "boolean")
          },
        ),
    },
    {
      name: "email normaliser: one mailbox, lower-case, idempotent, or EmailSignInError",
      weight: 1,
      property: () =>
        fc.property(
          asUnknown(
            fc.oneof(
              anyText,
              fc.emailAddress(),
              fc.tuple(fc.emailAddress(), anyText).map(([e, t]) => e + t),
              fc.tuple(anyText, fc.emailAddress()).map(([t, e]) => t + e),
              fc.emailAddress().map((e) => e.toUpperCase().replace("@", "＠")),
              fc.constantFrom(undefined, null, 42, {}, ["a@b.c"]),
            ),
          ),
          (input) => {
            let out: string
            try {
              out = normalizeEmail(input)
            } catch (error) {
              assert.ok(error instanceof EmailSignInError, `unexpected ${(error as Error).name}`)
              return
            }
            assert.equal(out.split("@").length, 2, `not one mailbox: ${out}`)
            assert.equal(out, out.toLowerCase())
            assert.ok(!/[\s,;<>"'()\\:[\]]/.test(out), `special character kept: ${out}`)
            assert.equal(normalizeEmail(out), out, "not idempotent")
          },
        ),
    },
  ]
}
