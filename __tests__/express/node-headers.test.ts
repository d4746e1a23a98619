/**
 * `headersOf(req)` (lib/express/node-headers.ts) answers reads from Node's parsed headers instead of copying them into
 * a Web `Headers` (issue 27). It must read exactly as the copy does (`copyHeaders`), for headers as Node's parser gives
 * them and for what an app's middleware may have put in `req.headers`, and behave as a `Headers` wherever one is used.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { copyHeaders, headersOf } from "../../lib/express/node-headers"

/** The headers Node's parser makes of a real request sending `raw` (an array value: the header repeated). */
async function parsed(raw: Record<string, string | string[]>): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders | undefined
  const server = createServer((req, res) => {
    seen = req.headers
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest({ port, host: "127.0.0.1", path: "/", headers: raw }, (res) => {
      res.resume()
      res.on("end", resolve)
    })
    req.on("error", reject)
    req.end()
  })
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return seen!
}

/** Every name a test reads: present ones in several spellings, absent ones, and the ones the pipeline asks for. */
const NAMES = [
  "accept",
  "Accept",
  "ACCEPT",
  "cookie",
  "Cookie",
  "user-agent",
  "x-custom",
  "X-Custom",
  "x-empty",
  "x-tabbed",
  "x-num",
  "x-upper",
  "X-Upper",
  "x-list",
  "set-cookie",
  "x-latin",
  "x-wide",
  "x-space",
  "x-nul",
  "authorization",
  "X-Auth-Return-Redirect",
  "host",
  "constructor",
  "__proto__",
]

/** Reads both and compares every answer, including thrown errors. */
function expectSameReads(view: Headers, copy: Headers): void {
  const read = (headers: Headers, fn: (h: Headers) => unknown) => {
    try {
      return { value: fn(headers) }
    } catch (error) {
      return { thrown: (error as Error).constructor.name }
    }
  }
  for (const name of [...NAMES, "bad name", "", "x:y", "é"]) {
    expect([name, read(view, (h) => h.get(name))]).toEqual([name, read(copy, (h) => h.get(name))])
    expect([name, read(view, (h) => h.has(name))]).toEqual([name, read(copy, (h) => h.has(name))])
  }
}

const pairs = (headers: Headers) => [...headers]

describe("headersOf: a Web Headers read from Node's parsed headers", () => {
  const browserLike = {
    Accept: "application/json",
    Cookie: "authjs.session-token=abc.def; authjs.csrf-token=1%7C2",
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0",
    "X-Custom": ["one", "two"],
    "X-Empty": "",
    "X-Tabbed": "a\tb",
    "X-Latin": "caf\u00e9",
  }

  it("reads what the copy reads for headers as Node's parser gives them", async () => {
    const headers = await parsed(browserLike)
    const req = { headers }
    const view = headersOf(req)
    expectSameReads(view, copyHeaders(req))
    expect(view.get("x-custom")).toBe("one, two")
    expect(view.get("X-EMPTY")).toBe("")
    expect(view.get("cookie")).toBe("authjs.session-token=abc.def; authjs.csrf-token=1%7C2")
    // Walking the headers gives the copy's sorted, combined list.
    expect(pairs(view)).toEqual(pairs(copyHeaders(req)))
    expect([...view.keys()]).toEqual([...copyHeaders(req).keys()])
    expect([...view.values()]).toEqual([...copyHeaders(req).values()])
    expect([...view.entries()]).toEqual([...copyHeaders(req).entries()])
  })

  it("reads what the copy reads when middleware changed req.headers", () => {
    // Values Node's parser never gives: a number, an array, surrounding spaces (which Headers trims), a code point
    // over 0xFF and a NUL (which Headers refuses, so the copy drops them), undefined, an HTTP/2 pseudo-header.
    const odd = {
      accept: "text/html",
      "x-num": 42,
      "x-list": ["a", "b"],
      "set-cookie": ["a=1", "b=2"],
      "x-space": "  padded\t",
      "x-wide": "snow \u2603",
      "x-nul": "a\0b",
      "x-gone": undefined,
    } as unknown as IncomingHttpHeaders
    expectSameReads(headersOf({ headers: odd }), copyHeaders({ headers: odd }))
    expect(headersOf({ headers: odd }).get("x-space")).toBe("padded")
    expect(headersOf({ headers: odd }).get("x-wide")).toBeNull()
    expect(headersOf({ headers: odd }).getSetCookie()).toEqual(["a=1", "b=2"])
    expect(pairs(headersOf({ headers: odd }))).toEqual(pairs(copyHeaders({ headers: odd })))

    // A name a middleware wrote in capitals, and an HTTP/2 pseudo-header: the whole read is the copy.
    const named = { "X-Upper": "yes", ":path": "/x", accept: "a" } as IncomingHttpHeaders
    expectSameReads(headersOf({ headers: named }), copyHeaders({ headers: named }))
    expect(headersOf({ headers: named }).get("x-upper")).toBe("yes")
    expect([...headersOf({ headers: named }).keys()]).toEqual(["accept", "x-upper"])
  })

  it("is a Headers: instanceof, changes, forEach, and a Request built from it", async () => {
    const headers = await parsed(browserLike)
    const view = headersOf({ headers })
    expect(view).toBeInstanceOf(Headers)

    // Changes go to a copy made once; the request's own headers stay as they were.
    view.set("content-length", "3")
    view.append("x-custom", "three")
    view.delete("user-agent")
    expect(view.get("content-length")).toBe("3")
    expect(view.get("x-custom")).toBe("one, two, three")
    expect(view.has("user-agent")).toBe(false)
    expect(headers["user-agent"]).toBe("Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0")
    expect(headers["content-length"]).toBeUndefined()

    const seen: [string, string][] = []
    view.forEach(function (this: unknown, value, key, parent) {
      expect(parent).toBe(view)
      expect(this).toBe(seen)
      seen.push([key, value])
    }, seen)
    expect(seen).toEqual(pairs(view))

    const built = new Request("https://app.example/auth/session", { headers: headersOf({ headers }) })
    expect(pairs(built.headers)).toEqual(pairs(copyHeaders({ headers })))
    expect(pairs(new Headers(headersOf({ headers })))).toEqual(pairs(copyHeaders({ headers })))
  })

  it("refuses an invalid name as Headers does, and finds nothing on the prototype", async () => {
    const view = headersOf({ headers: await parsed({ Accept: "a" }) })
    expect(() => view.get("bad name")).toThrow(/invalid header name/)
    expect(() => view.has("x:y")).toThrow(/invalid header name/)
    expect(view.get("constructor")).toBeNull()
    expect(view.has("__proto__")).toBe(false)
    expect(view.get("ACCEPT")).toBe("a")
  })
})
