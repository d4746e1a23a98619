/**
 * `GET <base>/session` without a query skips the general parse (issue 27): `sessionReadOf` must give exactly what
 * `parseRequestSource` gives for such a request, and nothing for any other.
 */
import { parseRequestSource, sessionReadOf, sourceOfBytes } from "../../lib/core/kernel/request"
import { CookieJar } from "../../lib/core/kernel/cookies/jar"
import { serializeResult } from "../../lib/core/kernel/response"
import { withoutTrailingSlashes } from "../../lib/express/mount"

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

describe("serializeResult", () => {
  it("gives a frozen headers object's pairs as a new array each time (GET /session answers shared headers)", () => {
    const headers = Object.freeze({ "Content-Type": "application/json", Pragma: "no-cache" })
    const jar = new CookieJar()
    jar.set("a", "1", { path: "/" })
    const first = serializeResult({ headers, body: { ok: true } }, jar)
    const second = serializeResult({ headers, body: null }, new CookieJar())
    expect(first.headers).toEqual([...Object.entries(headers), ["Set-Cookie", "a=1; Path=/"]])
    // The first answer's cookie is its own: the pairs kept for the frozen object were copied, not pushed to.
    expect(second.headers).toEqual(Object.entries(headers))
    expect(second.headers).not.toBe(first.headers)
    expect(first.body).toBe('{"ok":true}')
  })

  it("reads a headers object that is not frozen as it is at each call", () => {
    const headers: Record<string, string> = { A: "1" }
    expect(serializeResult({ headers }, new CookieJar()).headers).toEqual([["A", "1"]])
    headers.B = "2"
    expect(serializeResult({ headers }, new CookieJar()).headers).toEqual([
      ["A", "1"],
      ["B", "2"],
    ])
  })
})

describe("withoutTrailingSlashes", () => {
  it.each([
    ["/auth", "/auth"],
    ["/auth/", "/auth"],
    ["/auth///", "/auth"],
    ["/", ""],
    ["", ""],
  ])("%s -> %s", (path, expected) => expect(withoutTrailingSlashes(path)).toBe(expected))
})
