// next-wave E.1.2 `session.storeIp`: a new database session records the client IP (off by default; the address, or
// only its network with "truncate"), taken from Express's req.ip so `trust proxy` decides; listSessions shows it.
import express from "express"
import request from "supertest"
import { Gatehouse } from "../../lib"
import { MemoryAdapter } from "../../lib/storage/memory/adapter"
import type { Adapter } from "../../lib/storage/adapter"
import { storedClientIp } from "../../lib/core/kernel/rate-limit/ip"
import { InvalidConfig } from "../../lib/errors"
import Credentials from "../../lib/providers/credentials"
import { POSTGRES, describeWithService } from "../adapters/services"
import { postgresAdapterInFreshSchema } from "../fixtures/postgres-adapter"
import { sqliteAdapterInTempDir } from "../fixtures/sqlite-adapter"
import { SECRET, cookieHeader, cookieJar } from "./apps"

describe("storedClientIp", () => {
  it.each([
    ["192.0.2.77", true, "192.0.2.77"],
    ["192.0.2.77", "truncate", "192.0.2.0/24"],
    ["::ffff:192.0.2.77", true, "192.0.2.77"],
    ["::ffff:192.0.2.77", "truncate", "192.0.2.0/24"],
    ["2001:DB8:1:2::FFFF", true, "2001:db8:1:2::ffff"],
    ["2001:db8:1:2::ffff", "truncate", "2001:db8:1:2:0:0:0:0/64"],
    ["not-an-ip", true, null],
    ["", "truncate", null],
  ] as const)("%s (%s) -> %s", (input, mode, stored) => {
    expect(storedClientIp(input, mode)).toBe(stored)
  })
})

function appFor(adapter: Adapter, storeIp: boolean | "truncate" | undefined, trustProxy: boolean) {
  const gatehouse = Gatehouse({
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "database", ...(storeIp === undefined ? {} : { storeIp }) },
    logger: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: (c) => (c.password === "pw" ? { id: `user-${String(c.username)}`, name: String(c.username) } : null),
      }),
    ],
  })
  const app = express()
  if (trustProxy) app.set("trust proxy", 1)
  app.use("/auth", gatehouse.handlers)
  app.get("/my/sessions", (req, res) => {
    gatehouse.listSessions(req, res).then(
      (list) => void res.json(list),
      () => void res.status(500).end(),
    )
  })
  return app
}

async function ipsAfterSignIn(app: express.Express, username: string, forwardedFor?: string): Promise<unknown[]> {
  const csrf = await request(app).get("/auth/csrf")
  let jar = cookieJar({}, csrf.headers["set-cookie"])
  const post = request(app).post("/auth/callback/credentials").set("Cookie", cookieHeader(jar)).type("form")
  if (forwardedFor) post.set("X-Forwarded-For", forwardedFor)
  const res = await post.send({ csrfToken: csrf.body.csrfToken, username, password: "pw" })
  expect(res.status).toBe(302)
  jar = cookieJar(jar, res.headers["set-cookie"])
  const list = await request(app).get("/my/sessions").set("Cookie", cookieHeader(jar))
  expect(list.status).toBe(200)
  return (list.body as Array<{ ip?: string }>).map((s) => s.ip)
}

const subjects: Array<[string, () => Promise<{ adapter: Adapter; teardown(): Promise<void> }>, typeof describe]> = [
  ["memory", async () => ({ adapter: MemoryAdapter(), teardown: async () => undefined }), describe],
  ["SQLite", async () => sqliteAdapterInTempDir("gatehouse-ip"), describe],
  [
    "PostgreSQL",
    async () => postgresAdapterInFreshSchema("gatehouse_ip"),
    ((title: string, body: () => void) => describeWithService(POSTGRES, title, body)) as typeof describe,
  ],
]

for (const [name, open, describeFor] of subjects) {
  describeFor(`session.storeIp on ${name}`, () => {
    let subject: Awaited<ReturnType<typeof open>>
    beforeAll(async () => {
      subject = await open()
    })
    afterAll(async () => subject.teardown())

    it("stores no IP by default", async () => {
      const app = appFor(subject.adapter, undefined, true)
      expect(await ipsAfterSignIn(app, "off", "203.0.113.9")).toEqual([undefined])
    })

    it("stores the forwarded address behind a trusted proxy, and only its network with truncate", async () => {
      expect(await ipsAfterSignIn(appFor(subject.adapter, true, true), "full", "203.0.113.9")).toEqual(["203.0.113.9"])
      expect(await ipsAfterSignIn(appFor(subject.adapter, "truncate", true), "v4", "203.0.113.9")).toEqual([
        "203.0.113.0/24",
      ])
      expect(await ipsAfterSignIn(appFor(subject.adapter, "truncate", true), "v6", "2001:db8:5:6::42")).toEqual([
        "2001:db8:5:6:0:0:0:0/64",
      ])
    })

    it("ignores a spoofed X-Forwarded-For without trust proxy (the socket address is stored)", async () => {
      const [ip] = await ipsAfterSignIn(appFor(subject.adapter, true, false), "spoof", "203.0.113.9")
      expect(ip).toMatch(/^(127\.0\.0\.1|::1)$/)
    })
  })
}

it('rejects a storeIp value that is not true, false or "truncate"', () => {
  expect(() =>
    Gatehouse({
      secret: SECRET,
      trustHost: true,
      adapter: MemoryAdapter(),
      session: { strategy: "database", storeIp: "yes" as unknown as true },
      providers: [Credentials({ credentials: {}, authorize: () => null })],
    }),
  ).toThrow(InvalidConfig)
})
