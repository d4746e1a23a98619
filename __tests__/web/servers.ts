/** Serves a Fetch-flavour Gatehouse app through `node:http` (the converters) and through Hono on @hono/node-server. */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import { sendWebResponse, toWebRequest } from "../../lib/express/convert"
import type { WebGatehouse } from "../../lib/web"

/** App routes: path → handler of the Web request. */
export type Routes = Record<string, (request: Request) => Promise<Response>>

export interface Served {
  url: string
  close(): Promise<void>
}

function listening(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  )
}

function closing(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

/** `node:http`: `handle()` first, then the app's routes, 404 otherwise. */
async function serveNode(gh: WebGatehouse, routes: Routes): Promise<Served> {
  const server = createServer((req, res) => {
    void (async () => {
      const request = await toWebRequest(req)
      const route = routes[new URL(request.url).pathname]
      const response =
        (await gh.handle(request)) ?? (route ? await route(request) : new Response("Not found", { status: 404 }))
      await sendWebResponse(response, res)
    })().catch(() => {
      res.statusCode = 500
      res.end()
    })
  })
  const url = await listening(server)
  return { url, close: () => closing(server) }
}

/** Hono, as the README shows it: the auth routes, a session middleware applying cookies, then the app's routes. */
async function serveHono(gh: WebGatehouse, routes: Routes): Promise<Served> {
  const app = new Hono()
  app.on(["GET", "POST"], "/auth/*", (c) => gh.handlers[c.req.method as "GET" | "POST"](c.req.raw))
  app.use("*", async (c, next) => {
    await next()
    c.res = gh.applyCookies(c.req.raw, c.res)
  })
  for (const [path, route] of Object.entries(routes)) app.all(path, (c) => route(c.req.raw))
  const url = await new Promise<string>((resolve) => {
    serverRef = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", overrideGlobalObjects: false }, (info) =>
      resolve(`http://127.0.0.1:${info.port}`),
    ) as Server
  })
  const server = serverRef!
  return { url, close: () => closing(server) }
}
let serverRef: Server | undefined

export const servers = [
  ["node:http", serveNode],
  ["Hono", serveHono],
] as const
