/**
 * `GET <base>/session` without a query skips the general parse (issue 27): `sessionReadOf` must give exactly what
 * `parseRequestSource` gives for such a request, and nothing for any other.
 */
import { parseRequestSource, sessionReadOf, sourceOfBytes } from "../../lib/core/kernel/request"

const headers = () =>
  new Headers({ cookie: "authjs.session-token=abc; authjs.csrf-token=1%7C2; a=%ZZ", accept: "application/json" })

describe("sessionReadOf", () => {
  it.each([
    ["/auth", "https://app.example/auth/session"],
    ["/auth", "https://app.example/auth/session?"],
    ["", "http://localhost:3000/session"],
    ["/api/auth", "https://app.example/api/auth/session"],
  ])("gives what the general parse gives for GET %s at %s", async (base, url) => {
    const source = sourceOfBytes("GET", new URL(url), headers(), null)
    const fast = sessionReadOf(source, base)
    expect(fast).toBeDefined()
    expect(fast).toStrictEqual(await parseRequestSource(source, base))
    expect(Object.keys(fast!)).toEqual(Object.keys(await parseRequestSource(source, base)))
  })

  it.each([
    ["POST", "https://app.example/auth/session"],
    ["GET", "https://app.example/auth/session?update=1"],
    ["GET", "https://app.example/auth/session/"],
    ["GET", "https://app.example/auth/sessions"],
    ["GET", "https://app.example/auth/csrf"],
    ["GET", "https://app.example/other/session"],
    ["GET", "https://app.example/auth//session"],
  ])("leaves %s %s to the general parse", (method, url) => {
    expect(sessionReadOf(sourceOfBytes(method, new URL(url), headers(), null), "/auth")).toBeUndefined()
  })
})
