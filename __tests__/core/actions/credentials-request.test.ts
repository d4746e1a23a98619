import { Auth } from "../../../lib/core"
import Credentials from "../../../lib/providers/credentials"
import type { CredentialsConfig } from "../../../lib/providers/types"
import { mayReadSecondArgument } from "../../../lib/core/methods/credentials/reads-request"
import { credentialsConfig, csrf, demoUser, makeRequest } from "../helpers"

type Authorize = CredentialsConfig["authorize"]

/** Signs in with `authorize`; answers the status and how many `Request` objects the sign-in constructed. */
async function signIn(authorize: Authorize): Promise<{ status: number; built: number }> {
  const config = credentialsConfig({ providers: [Credentials({ authorize })] })
  const { token, cookies } = await csrf(config)
  const request = makeRequest("/auth/callback/credentials", {
    cookies,
    body: { csrfToken: token, username: "ada", password: "pw" },
  })
  const original = globalThis.Request
  let built = 0
  globalThis.Request = class extends original {
    constructor(...args: ConstructorParameters<typeof Request>) {
      super(...args)
      built++
    }
  }
  try {
    const response = await Auth(request, config)
    return { status: response.status, built }
  } finally {
    globalThis.Request = original
  }
}

describe("the request authorize() receives", () => {
  it("is not built for an authorize that takes the credentials alone (the sign-in still succeeds)", async () => {
    const { status, built } = await signIn(async (credentials) => (credentials.username === "ada" ? demoUser : null))
    expect(status).toBe(302)
    expect(built).toBe(0)
  })

  it("is built, with the fields as JSON, for an authorize declaring a second parameter", async () => {
    let seen: unknown
    const { status, built } = await signIn(async (_credentials, request) => {
      seen = await request.json()
      return demoUser
    })
    expect(status).toBe(302)
    expect(built).toBe(1)
    expect(seen).toMatchObject({ username: "ada", password: "pw" })
  })

  it("is built for an authorize with a rest parameter or one reading `arguments`", async () => {
    const seen: unknown[] = []
    const rest = async (...args: unknown[]) => {
      seen.push(args[1])
      return demoUser
    }
    const viaArguments = async function (this: unknown, _credentials: unknown) {
      // eslint-disable-next-line prefer-rest-params
      seen.push(arguments[1])
      return demoUser
    }
    expect((await signIn(rest as Authorize)).status).toBe(302)
    expect((await signIn(viaArguments as Authorize)).status).toBe(302)
    expect(seen).toHaveLength(2)
    for (const request of seen) expect(request).toBeInstanceOf(Request)
  })
})

describe("mayReadSecondArgument", () => {
  const noSecond: [string, (...args: never[]) => unknown][] = [
    ["a one-parameter arrow", (c: unknown) => c],
    ["a bare arrow", (c: unknown) => c],
    ["an async arrow with a destructured parameter", async ({ username }: { username: string }) => username],
    ["no parameter", () => null],
    [
      "a function expression",
      function (c: unknown) {
        return c
      },
    ],
    [
      "a method",
      {
        authorize(c: unknown) {
          return c
        },
      }.authorize,
    ],
    [
      "an async method with a destructured parameter",
      {
        async authorize({ u }: { u: string }) {
          return u
        },
      }.authorize,
    ],
  ]
  it.each(noSecond)("is false for %s", (_name, fn) => {
    expect(mayReadSecondArgument(fn)).toBe(false)
  })

  const maySecond: [string, (...args: never[]) => unknown][] = [
    ["two parameters", (_c: unknown, r: unknown) => r],
    ["a rest parameter", (...args: unknown[]) => args],
    ["a parameter and a rest", (_c: unknown, ...r: unknown[]) => r],
    ["a default on the second parameter", ((c: unknown, r: unknown = 1) => [c, r]) as (...args: never[]) => unknown],
    [
      "`arguments`",
      function (_c: unknown) {
        // eslint-disable-next-line prefer-rest-params
        return arguments[1] as unknown
      },
    ],
    ["a bound function", ((c: unknown) => c).bind(null)],
    ["a proxied function", new Proxy((c: unknown) => c, {})],
    ["a comment in the parameter list", (c: unknown /* , request */) => c],
    ["a default value holding a parenthesis", ({ a = ")" }: { a?: string }) => a],
    [
      "a computed method name",
      {
        ["x"](c: unknown) {
          return c
        },
      }.x,
    ],
  ]
  it.each(maySecond)("is true for %s", (_name, fn) => {
    expect(mayReadSecondArgument(fn)).toBe(true)
  })
})
