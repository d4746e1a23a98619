// toWebRequest / sendWebResponse on Express 4 and Express 5, driven through real HTTP (supertest and node:http).
import http from "node:http"
import type { AddressInfo } from "node:net"
import express5 from "express"
import express4 from "express4"
import request from "supertest"
import { DEFAULT_BODY_LIMIT, sendWebResponse, toWebRequest } from "../../lib/express/convert"
import type { NodeRequest, ToWebRequestOptions } from "../../lib/express/convert"

type Handler = (req: NodeRequest, res: http.ServerResponse, next: (err?: unknown) => void) => void

/** The Express surface these tests use, common to both versions. */
interface App {
  use(...handlers: unknown[]): unknown
  set(setting: string, value: unknown): unknown
}

interface Flavour {
  name: string
  create(): App
  json(): Handler
  urlencoded(): Handler
}

const flavours: Flavour[] = [
  {
    name: "Express 4",
    create: () => express4() as unknown as App,
    json: () => express4.json() as unknown as Handler,
    urlencoded: () => express4.urlencoded({ extended: true }) as unknown as Handler,
  },
  {
    name: "Express 5",
    create: () => express5() as unknown as App,
    json: () => express5.json() as unknown as Handler,
    urlencoded: () => express5.urlencoded({ extended: true }) as unknown as Handler,
  },
]

interface Echo {
  url: string
  method: string
  headers: [string, string][]
  body: string | null
}

/** A handler that converts the request and answers with what the Web `Request` holds. */
function echo(options: ToWebRequestOptions = {}, seen?: { called: boolean }): Handler {
  return (req, res, next) => {
    toWebRequest(req, options)
      .then(async (webRequest) => {
        if (seen) seen.called = true
        const body = webRequest.body ? await webRequest.text() : null
        const echoed: Echo = {
          url: webRequest.url,
          method: webRequest.method,
          headers: [...webRequest.headers],
          body,
        }
        res.setHeader("content-type", "application/json")
        res.end(JSON.stringify(echoed))
      })
      .catch(next)
  }
}

const errorHandler = (
  err: { status?: number; type?: string; message: string },
  _req: unknown,
  res: http.ServerResponse,
  _next: unknown,
) => {
  res.statusCode = err.status ?? 500
  res.setHeader("content-type", "application/json")
  res.end(JSON.stringify({ type: err.type, message: err.message }))
}

function header(echoed: Echo, name: string): string | undefined {
  return echoed.headers.find(([key]) => key === name)?.[1]
}

/** Sends a raw request (any target, chunked bodies) to `server` and collects the answer. */
function rawRequest(
  server: http.Server,
  options: http.RequestOptions,
  chunks: (string | Buffer)[] = [],
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { port } = server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, ...options }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on("error", reject)
    })
    req.on("error", reject)
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })
}

/** supertest against an app of either version. */
function call(app: App) {
  return request(app as unknown as http.RequestListener)
}

function listen(app: App): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = http.createServer(app as unknown as http.RequestListener)
    server.listen(0, "127.0.0.1", () => resolve(server))
  })
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

describe.each(flavours)("toWebRequest on $name", (flavour) => {
  function appWith(setup: (app: App) => void): App {
    const app = flavour.create()
    setup(app)
    app.use(errorHandler)
    return app
  }

  describe("URL and origin", () => {
    it("builds the URL from req.protocol, the Host header (with its port) and req.originalUrl", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const res = await call(app).get("/auth/signin/github?callbackUrl=%2Fhome").set("Host", "app.example:8080")
      expect(res.status).toBe(200)
      expect((res.body as Echo).url).toBe("http://app.example:8080/auth/signin/github?callbackUrl=%2Fhome")
      expect((res.body as Echo).method).toBe("GET")
    })

    it("keeps the full path when mounted inside a Router-like nested mount", async () => {
      const app = appWith((a) => {
        const inner = flavour.create()
        inner.use("/auth", echo())
        a.use("/api", inner)
      })
      const res = await call(app).get("/api/auth/session").set("Host", "app.example")
      expect((res.body as Echo).url).toBe("http://app.example/api/auth/session")
    })

    it("ignores forged X-Forwarded-Host and X-Forwarded-Proto when trust proxy is off", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const res = await call(app)
        .get("/auth/csrf")
        .set("Host", "app.example")
        .set("X-Forwarded-Host", "evil.example")
        .set("X-Forwarded-Proto", "https")
      expect((res.body as Echo).url).toBe("http://app.example/auth/csrf")
      // The headers themselves are still forwarded, untouched.
      expect(header(res.body as Echo, "x-forwarded-host")).toBe("evil.example")
    })

    it("ignores X-Forwarded-* when trust proxy names another address than the peer", async () => {
      const app = appWith((a) => {
        a.set("trust proxy", "10.0.0.1")
        a.use("/auth", echo())
      })
      const res = await call(app)
        .get("/auth/csrf")
        .set("Host", "app.example")
        .set("X-Forwarded-Host", "evil.example")
        .set("X-Forwarded-Proto", "https")
      expect((res.body as Echo).url).toBe("http://app.example/auth/csrf")
    })

    it("honours X-Forwarded-Proto and the first X-Forwarded-Host (port included) when trust proxy is on", async () => {
      const app = appWith((a) => {
        a.set("trust proxy", "loopback")
        a.use("/auth", echo())
      })
      const res = await call(app)
        .get("/auth/csrf")
        .set("Host", "internal:3000")
        .set("X-Forwarded-Host", "public.example:8443, internal:3000")
        .set("X-Forwarded-Proto", "https")
      expect((res.body as Echo).url).toBe("https://public.example:8443/auth/csrf")
    })

    it("falls back to Host when trust proxy is on but no X-Forwarded-Host is sent", async () => {
      const app = appWith((a) => {
        a.set("trust proxy", true)
        a.use("/auth", echo())
      })
      const res = await call(app).get("/auth/csrf").set("Host", "app.example:3000").set("X-Forwarded-Proto", "https")
      expect((res.body as Echo).url).toBe("https://app.example:3000/auth/csrf")
    })

    it("uses the authUrl origin and nothing from Host or X-Forwarded-*, even with trust proxy on", async () => {
      const authUrl = new URL("https://auth.example.com/auth")
      for (const trust of [false, true]) {
        const app = appWith((a) => {
          a.set("trust proxy", trust)
          a.use("/auth", echo({ authUrl }))
        })
        const res = await call(app)
          .get("/auth/callback/github?code=1")
          .set("Host", "evil.example")
          .set("X-Forwarded-Host", "evil2.example")
          .set("X-Forwarded-Proto", "http")
        expect((res.body as Echo).url).toBe("https://auth.example.com/auth/callback/github?code=1")
      }
    })

    it("uses the authUrl origin even when the Host header is not a valid host", async () => {
      const authUrl = new URL("https://auth.example.com")
      const app = appWith((a) => a.use("/auth", echo({ authUrl })))
      const res = await call(app).get("/auth/csrf").set("Host", "bad host")
      expect(res.status).toBe(200)
      expect((res.body as Echo).url).toBe("https://auth.example.com/auth/csrf")
    })

    it.each(["evil.example/path", "evil.example?x", "a@evil.example", "bad host", "evil.example#x", "x:y:z"])(
      "rejects the Host header %p with 400",
      async (host) => {
        const app = appWith((a) => a.use("/auth", echo()))
        const res = await call(app).get("/auth/csrf").set("Host", host)
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ type: "request.invalid.host", message: "Invalid Host header" })
      },
    )

    it("rejects a forwarded host that is not a valid host when trust proxy is on", async () => {
      const app = appWith((a) => {
        a.set("trust proxy", true)
        a.use("/auth", echo())
      })
      const res = await call(app).get("/auth/csrf").set("X-Forwarded-Host", "evil.example/x")
      expect(res.status).toBe(400)
      expect((res.body as { type: string }).type).toBe("request.invalid.host")
    })

    it("rejects a forwarded protocol other than http or https", async () => {
      const app = appWith((a) => {
        a.set("trust proxy", true)
        a.use("/auth", echo())
      })
      const res = await call(app).get("/auth/csrf").set("X-Forwarded-Proto", "javascript")
      expect(res.status).toBe(400)
      expect((res.body as { type: string }).type).toBe("request.invalid.protocol")
    })

    it("takes only the path of an absolute-form request target and keeps a //path a path", async () => {
      const app = appWith((a) => {
        a.use("/auth", echo())
        a.use(echo())
      })
      const server = await listen(app)
      try {
        const absolute = await rawRequest(server, {
          path: "http://evil.example/auth/csrf?x=1",
          headers: { host: "app.example" },
        })
        expect((JSON.parse(absolute.body) as Echo).url).toBe("http://app.example/auth/csrf?x=1")
        const doubleSlash = await rawRequest(server, { path: "//evil.example/x", headers: { host: "app.example" } })
        const url = new URL((JSON.parse(doubleSlash.body) as Echo).url)
        expect(url.origin).toBe("http://app.example")
        expect(url.pathname).toBe("//evil.example/x")
        // Backslashes, dot segments and a fragment cannot move the origin either; the fragment is not part of the URL.
        for (const [path, expected] of [
          ["/\\evil.example/x", "http://app.example//evil.example/x"],
          ["/a/../..//evil.example/x?q=1", "http://app.example//evil.example/x?q=1"],
          ["/auth/csrf?x=1#@evil.example", "http://app.example/auth/csrf?x=1"],
        ] as const) {
          const res = await rawRequest(server, { path, headers: { host: "app.example" } })
          expect((JSON.parse(res.body) as Echo).url).toBe(expected)
        }
      } finally {
        await close(server)
      }
    })
  })

  describe("headers", () => {
    it("copies every header, repeated ones included", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const server = await listen(app)
      try {
        const res = await rawRequest(server, {
          path: "/auth/session",
          headers: {
            host: "app.example",
            cookie: "authjs.session-token=abc; other=1",
            "x-repeated": ["one", "two"],
            accept: "application/json",
          },
        })
        const echoed = JSON.parse(res.body) as Echo
        expect(header(echoed, "cookie")).toBe("authjs.session-token=abc; other=1")
        expect(header(echoed, "x-repeated")).toBe("one, two")
        expect(header(echoed, "accept")).toBe("application/json")
        expect(header(echoed, "host")).toBe("app.example")
      } finally {
        await close(server)
      }
    })
  })

  describe("body", () => {
    const form = "csrfToken=abc&callbackUrl=%2Fhome&scope=a&scope=b"

    it("has no body for GET and HEAD", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const res = await call(app).get("/auth/csrf")
      expect((res.body as Echo).body).toBeNull()
      const head = await call(app).head("/auth/csrf")
      expect(head.status).toBe(200)
    })

    it("reads a urlencoded body from the stream when no parser ran", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const res = await call(app).post("/auth/signin/github").type("form").send(form)
      const echoed = res.body as Echo
      expect(echoed.method).toBe("POST")
      expect(echoed.body).toBe(form)
      expect(header(echoed, "content-type")).toBe("application/x-www-form-urlencoded")
      expect(header(echoed, "content-length")).toBe(String(form.length))
    })

    it("reads a JSON body from the stream when no parser ran", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const res = await call(app)
        .post("/auth/session")
        .send({ csrfToken: "abc", data: { name: "x" } })
      expect((res.body as Echo).body).toBe('{"csrfToken":"abc","data":{"name":"x"}}')
    })

    it("re-encodes a body express.urlencoded() parsed, arrays as repeated keys and nested fields in brackets", async () => {
      const app = appWith((a) => {
        a.use(flavour.urlencoded())
        a.use("/auth", echo())
      })
      const res = await call(app).post("/auth/signin/github").type("form").send(`${form}&profile%5Bname%5D=Ann&empty=`)
      const echoed = res.body as Echo
      const params = new URLSearchParams(echoed.body ?? "")
      expect(params.get("csrfToken")).toBe("abc")
      expect(params.get("callbackUrl")).toBe("/home")
      expect(params.getAll("scope")).toEqual(["a", "b"])
      expect(params.get("profile[name]")).toBe("Ann")
      expect(params.get("empty")).toBe("")
      expect(header(echoed, "content-type")).toBe("application/x-www-form-urlencoded")
      expect(header(echoed, "content-length")).toBe(String(Buffer.byteLength(echoed.body ?? "")))
    })

    it("re-encodes a body express.json() parsed as JSON", async () => {
      const app = appWith((a) => {
        a.use(flavour.json())
        a.use("/auth", echo())
      })
      const sent = { csrfToken: "abc", data: { list: [1, 2], nested: { ok: true } }, text: "é ✓" }
      const res = await call(app).post("/auth/session").send(sent)
      const echoed = res.body as Echo
      expect(JSON.parse(echoed.body ?? "null")).toEqual(sent)
      expect(header(echoed, "content-type")).toBe("application/json")
      expect(header(echoed, "content-length")).toBe(String(Buffer.byteLength(echoed.body ?? "")))
    })

    it("reads the stream when the app's parser is for another content type", async () => {
      const app = appWith((a) => {
        a.use(flavour.json())
        a.use("/auth", echo())
      })
      const res = await call(app).post("/auth/signin/github").type("form").send(form)
      expect((res.body as Echo).body).toBe(form)
    })

    it("accepts a body of exactly the default limit", async () => {
      const app = appWith((a) => a.use("/auth", echo()))
      const body = `a=${"x".repeat(DEFAULT_BODY_LIMIT - 2)}`
      const res = await call(app).post("/auth/signin").type("form").send(body)
      expect(res.status).toBe(200)
      expect((res.body as Echo).body).toHaveLength(DEFAULT_BODY_LIMIT)
    })

    it("answers 413 to a declared body one byte over the default limit, and nothing else runs", async () => {
      const seen = { called: false }
      const app = appWith((a) => a.use("/auth", echo({}, seen)))
      const body = `a=${"x".repeat(DEFAULT_BODY_LIMIT - 1)}`
      const res = await call(app).post("/auth/signin").type("form").send(body)
      expect(res.status).toBe(413)
      expect(res.body).toEqual({ type: "entity.too.large", message: "Request body too large" })
      expect(seen.called).toBe(false)
    })

    it("answers 413 to a chunked body that passes bodyLimit, with status and statusCode on the error", async () => {
      const errors: unknown[] = []
      const app = flavour.create()
      app.use("/auth", echo({ bodyLimit: 10 }))
      app.use((err: { status?: number }, req: unknown, res: http.ServerResponse, next: unknown) => {
        errors.push(err)
        errorHandler(err as never, req, res, next)
      })
      const server = await listen(app)
      try {
        const res = await rawRequest(
          server,
          { method: "POST", path: "/auth/signin", headers: { "content-type": "text/plain" } },
          ["0123456", "789", "ab"],
        )
        expect(res.status).toBe(413)
        expect(errors).toHaveLength(1)
        expect(errors[0]).toMatchObject({ status: 413, statusCode: 413, type: "entity.too.large", expose: true })
        const ok = await rawRequest(
          server,
          { method: "POST", path: "/auth/signin", headers: { "content-type": "text/plain" } },
          ["01234", "56789"],
        )
        expect(ok.status).toBe(200)
        expect((JSON.parse(ok.body) as Echo).body).toBe("0123456789")
      } finally {
        await close(server)
      }
    })

    it("takes a body that arrived whole with its headers from the stream's buffer, byte for byte, without listening", async () => {
      const listened: string[] = []
      const app = appWith((a) =>
        a.use("/auth", (req: NodeRequest, res: http.ServerResponse, next: (err?: unknown) => void) => {
          const on = req.on.bind(req)
          req.on = ((event: string, listener: (...args: unknown[]) => void) => {
            listened.push(event)
            return on(event, listener)
          }) as typeof req.on
          // Past the parser's turn: by now a small body sent with its headers is complete in the buffer.
          setImmediate(() => {
            expect(req.complete).toBe(true)
            echo()(req, res, next)
          })
        }),
      )
      const server = await listen(app)
      try {
        const body = "name=%C3%A9+%E2%9C%93&csrfToken=abc"
        const res = await rawRequest(
          server,
          {
            method: "POST",
            path: "/auth/signin",
            headers: { "content-type": "application/x-www-form-urlencoded", "content-length": body.length },
          },
          [body],
        )
        expect(res.status).toBe(200)
        const echoed = JSON.parse(res.body) as Echo
        expect(echoed.body).toBe(body)
        expect(header(echoed, "content-length")).toBe(String(body.length))
        expect(listened).not.toContain("data")
      } finally {
        await close(server)
      }
    })

    it("takes a body of a declared length from the buffer as soon as all of it is there, without listening", async () => {
      const listened: string[] = []
      const app = appWith((a) =>
        a.use("/auth", (req: NodeRequest, res: http.ServerResponse, next: (err?: unknown) => void) => {
          const on = req.on.bind(req)
          req.on = ((event: string, listener: (...args: unknown[]) => void) => {
            listened.push(event)
            return on(event, listener)
          }) as typeof req.on
          // One microtask after the request event, as behind any `await` (Gatehouse's handler awaits its config).
          void Promise.resolve().then(() => echo()(req, res, next))
        }),
      )
      const server = await listen(app)
      try {
        const body = "csrfToken=abc&username=ada"
        const res = await rawRequest(
          server,
          {
            method: "POST",
            path: "/auth/signin",
            headers: { "content-type": "application/x-www-form-urlencoded", "content-length": body.length },
          },
          [body],
        )
        expect(res.status).toBe(200)
        expect((JSON.parse(res.body) as Echo).body).toBe(body)
        expect(listened).not.toContain("data")
      } finally {
        await close(server)
      }
    })

    it("reads a body whose end arrives later from the stream", async () => {
      const app = appWith((a) => a.use("/auth", echo({ bodyLimit: 20 })))
      const server = await listen(app)
      const { port } = server.address() as AddressInfo
      try {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request(
            {
              host: "127.0.0.1",
              port,
              method: "POST",
              path: "/auth/signin",
              headers: { "content-type": "text/plain" },
            },
            (res) => {
              let body = ""
              res.setEncoding("utf8")
              res.on("data", (chunk: string) => (body += chunk))
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
            },
          )
          req.on("error", reject)
          req.write("01234")
          setTimeout(() => req.end("56789"), 50)
        })
        expect(answer.status).toBe(200)
        expect((JSON.parse(answer.body) as Echo).body).toBe("0123456789")
      } finally {
        await close(server)
      }
    })

    it("answers 413 to a body that arrived whole but passes bodyLimit", async () => {
      const app = appWith((a) =>
        a.use("/auth", (req: NodeRequest, res: http.ServerResponse, next: (err?: unknown) => void) => {
          setImmediate(() => echo({ bodyLimit: 10 })(req, res, next))
        }),
      )
      const server = await listen(app)
      try {
        const res = await rawRequest(
          server,
          {
            method: "POST",
            path: "/auth/signin",
            headers: { "content-type": "text/plain", "transfer-encoding": "chunked" },
          },
          ["0123456789ab"],
        )
        expect(res.status).toBe(413)
        expect(JSON.parse(res.body)).toEqual({ type: "entity.too.large", message: "Request body too large" })
      } finally {
        await close(server)
      }
    })

    it("rejects an invalid bodyLimit as a caller's mistake", async () => {
      const app = appWith((a) => a.use("/auth", echo({ bodyLimit: -1 })))
      const res = await call(app).post("/auth/signin").type("form").send("a=1")
      expect(res.status).toBe(500)
      expect((res.body as { message: string }).message).toBe("bodyLimit must be a non-negative integer")
    })
  })
})

describe.each(flavours)("sendWebResponse on $name", (flavour) => {
  function appSending(
    makeResponse: () => Response,
    before?: (res: http.ServerResponse) => void,
    outcome?: { resolved?: boolean; error?: unknown },
  ): App {
    const app = flavour.create()
    app.use("/r", ((_req, res, next) => {
      before?.(res)
      sendWebResponse(makeResponse(), res).then(
        () => {
          if (outcome) outcome.resolved = true
        },
        (err: unknown) => {
          if (outcome) outcome.error = err
          next(err)
        },
      )
    }) satisfies Handler)
    app.use(errorHandler)
    return app
  }

  it("copies status, status text, headers and body", async () => {
    const app = appSending(
      () =>
        new Response("created!", {
          status: 201,
          statusText: "Made It",
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "x-auth-return-redirect": "1",
            "cache-control": "no-store",
          },
        }),
    )
    const res = await call(app).get("/r")
    expect(res.status).toBe(201)
    expect(res.text).toBe("created!")
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8")
    expect(res.headers["x-auth-return-redirect"]).toBe("1")
    expect(res.headers["cache-control"]).toBe("no-store")
    expect((res as unknown as { res: { statusMessage: string } }).res.statusMessage).toBe("Made It")
  })

  it("sends a redirect and a JSON body", async () => {
    const redirect = await call(appSending(() => Response.redirect("https://app.example/home", 302))).get("/r")
    expect(redirect.status).toBe(302)
    expect(redirect.headers.location).toBe("https://app.example/home")
    const json = await call(appSending(() => Response.json({ url: "https://app.example" }))).get("/r")
    expect(json.body).toEqual({ url: "https://app.example" })
    expect(json.headers["content-type"]).toBe("application/json")
  })

  it("sends each Set-Cookie as its own header, after any cookie the app set", async () => {
    const cookies = [
      "authjs.csrf-token=abc%7Cdef; Path=/; HttpOnly; SameSite=Lax",
      "authjs.callback-url=http%3A%2F%2Fapp.example; Path=/; HttpOnly; SameSite=Lax",
      "authjs.session-token=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax",
    ]
    const app = appSending(
      () => {
        const headers = new Headers({ "content-type": "application/json" })
        for (const cookie of cookies) headers.append("set-cookie", cookie)
        return new Response("{}", { headers })
      },
      (res) => res.setHeader("set-cookie", "app=1; Path=/"),
    )
    const res = await call(app).get("/r")
    expect(res.headers["set-cookie"]).toEqual(["app=1; Path=/", ...cookies])
  })

  it("sends an empty body for 204 and for HEAD", async () => {
    const noContent = await call(appSending(() => new Response(null, { status: 204 }))).get("/r")
    expect(noContent.status).toBe(204)
    expect(noContent.text).toBe("")
    const head = await call(appSending(() => new Response("body", { headers: { "x-a": "1" } }))).head("/r")
    expect(head.status).toBe(200)
    expect(head.headers["x-a"]).toBe("1")
    expect(head.text ?? "").toBe("")
  })

  it("streams the body: the first chunk reaches the client before the rest is produced", async () => {
    let firstChunkReceived!: () => void
    const received = new Promise<void>((resolve) => (firstChunkReceived = resolve))
    const encoder = new TextEncoder()
    const app = appSending(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(encoder.encode("first;"))
              await received
              controller.enqueue(encoder.encode("second"))
              controller.close()
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    )
    const server = await listen(app)
    try {
      const { port } = server.address() as AddressInfo
      const result = await new Promise<{ chunks: string[]; encoding?: string }>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: "/r" }, (res) => {
            const chunks: string[] = []
            res.setEncoding("utf8")
            res.on("data", (chunk: string) => {
              chunks.push(chunk)
              if (chunks.length === 1) firstChunkReceived()
            })
            res.on("end", () => resolve({ chunks, encoding: res.headers["transfer-encoding"] }))
          })
          .on("error", reject)
      })
      expect(result.chunks).toEqual(["first;", "second"])
      expect(result.encoding).toBe("chunked")
    } finally {
      await close(server)
    }
  })

  it("streams a large body with back-pressure intact", async () => {
    const size = 8 * 1024 * 1024
    const app = appSending(() => new Response(new Uint8Array(size).fill(97)))
    const res = await call(app)
      .get("/r")
      .buffer(true)
      .parse((response, done) => {
        let length = 0
        response.on("data", (chunk: Buffer) => (length += chunk.length))
        response.on("end", () => done(null, length))
      })
    expect(res.body).toBe(size)
  })

  it("rejects without sending anything when the body fails before its first chunk", async () => {
    const outcome: { resolved?: boolean; error?: unknown } = {}
    const app = appSending(
      () =>
        new Response(
          new ReadableStream({
            pull() {
              throw new Error("upstream failed")
            },
          }),
          { status: 200, headers: { "set-cookie": "authjs.session-token=x; Path=/", "x-a": "1" } },
        ),
      undefined,
      outcome,
    )
    const res = await call(app).get("/r")
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ message: "upstream failed" })
    expect(res.headers["set-cookie"]).toBeUndefined()
    expect(res.headers["x-a"]).toBeUndefined()
    expect((outcome.error as Error).message).toBe("upstream failed")
  })

  it("cuts the connection, and resolves, when the body fails after headers went out", async () => {
    const outcome: { resolved?: boolean; error?: unknown } = {}
    let produced = 0
    const app = appSending(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              produced += 1
              if (produced === 1) controller.enqueue(new TextEncoder().encode("partial"))
              else controller.error(new Error("upstream failed"))
            },
          }),
        ),
      undefined,
      outcome,
    )
    const server = await listen(app)
    try {
      const { port } = server.address() as AddressInfo
      const clientError = await new Promise<unknown>((resolve) => {
        http
          .get({ host: "127.0.0.1", port, path: "/r" }, (res) => {
            res.on("data", () => undefined)
            res.on("error", resolve)
            res.on("end", () => resolve(undefined))
          })
          .on("error", resolve)
      })
      // The client sees the response cut short ("aborted"), never a complete one.
      expect(clientError).toMatchObject({ message: expect.stringMatching(/aborted|hang up|ECONNRESET/) })
      expect(outcome).toEqual({ resolved: true })
    } finally {
      await close(server)
    }
  })

  it("cancels the body when the client goes away", async () => {
    let cancelled!: (reason: unknown) => void
    const cancelledPromise = new Promise((resolve) => (cancelled = resolve))
    const outcome: { resolved?: boolean; error?: unknown } = {}
    const app = appSending(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("tick"))
            },
            cancel(reason) {
              cancelled(reason)
            },
          }),
        ),
      undefined,
      outcome,
    )
    const server = await listen(app)
    try {
      const { port } = server.address() as AddressInfo
      await new Promise<void>((resolve) => {
        const req = http.get({ host: "127.0.0.1", port, path: "/r" }, (res) => {
          res.once("data", () => {
            req.destroy()
            resolve()
          })
        })
        req.on("error", () => undefined)
      })
      await cancelledPromise
      // The promise settles once the reader notices; it never rejects.
      await new Promise((resolve) => setImmediate(resolve))
      expect(outcome.error).toBeUndefined()
    } finally {
      await close(server)
    }
  })

  it("discards the response without throwing when headers were already sent", async () => {
    const outcome: { resolved?: boolean; error?: unknown } = {}
    let cancelled = false
    const app = appSending(
      () =>
        new Response(
          new ReadableStream({
            cancel() {
              cancelled = true
            },
          }),
          { status: 500 },
        ),
      (res) => {
        res.statusCode = 200
        res.end("already answered")
      },
      outcome,
    )
    const res = await call(app).get("/r")
    expect(res.status).toBe(200)
    expect(res.text).toBe("already answered")
    expect(outcome).toEqual({ resolved: true })
    expect(cancelled).toBe(true)
  })
})
