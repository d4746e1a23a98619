// Regressions for what the fuzzer found, one test each, through the public surface.
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import express from "express"
import { ExpressAuth } from "../../lib"
import { authConfig } from "../express/apps"

function send(port: number, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })
}

describe("fuzz regressions", () => {
  // Found by the Express fuzz: `new Request()` refuses the methods the Fetch standard forbids, so TRACE reached
  // Express's error handler as a 500.
  it("TRACE to the auth routes is a 400, never a 500", async () => {
    const errors: { status?: number; type?: string }[] = []
    const app = express()
    app.use("/auth", ExpressAuth(authConfig()))
    app.use(
      (
        error: Error & { status?: number; type?: string },
        _req: express.Request,
        res: express.Response,
        _next: unknown,
      ) => {
        errors.push(error)
        res.status(error.status ?? 500).end()
      },
    )
    const server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const answer = await send(port, "TRACE", "/auth/session")
      expect(answer.status).toBe(400)
      expect(errors).toEqual([expect.objectContaining({ status: 400, type: "request.invalid.method" })])
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
