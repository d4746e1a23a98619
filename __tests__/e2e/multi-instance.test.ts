// Several instances of one app (issue 14, item 5): three Node processes of the same Express app
// (fixtures/multi-instance/app.ts) behind a round-robin proxy, sharing PostgreSQL in one run, PostgreSQL through
// PgBouncer (transaction pooling) in another, Redis in a third and a Redis Cluster (3 masters + 3 replicas) in the last.
// A session begun on one instance is read on another and ended on a third; "sign out other devices" and "sign out
// everywhere" end sessions on all three (database rows, and for JWT sessions the shared store's watermark); a magic
// link works once across all three; rate limits count across all three (`rateLimit.store: "adapter"`). Also: the
// session cache's cross-instance window, and AUTH_SECRET rotation one rollout at a time. Requests go through the
// proxy, pinned to one instance where the step needs it.
import { fork, type ChildProcess } from "node:child_process"
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { resolve } from "node:path"
import Redis, { Cluster } from "ioredis"
import { Pool } from "pg"
import { migrate } from "../../lib/storage/postgres/adapter"
import {
  DATABASE_URL,
  PGBOUNCER,
  PGBOUNCER_URL,
  POSTGRES,
  REDIS,
  REDIS_CLUSTER,
  REDIS_CLUSTER_URL,
  REDIS_URL,
  describeWithService,
  randomSuffix,
} from "../adapters/services"
import {
  CACHED_SESSION_COOKIE,
  JWT_SESSION_COOKIE,
  MULTI_INSTANCE_PASSWORD,
} from "../fixtures/multi-instance/constants"
import { confirmFormOf } from "../fixtures/magic-link"
import { signInLinkOf, startSmtpServer, type SmtpFixture } from "../fixtures/smtp"

const APP = resolve(__dirname, "../fixtures/multi-instance/app.ts")
const SECRET = "several-instances-secret-0123456789abcdefghijklmnop"
const INSTANCES = [1, 2, 3] as const
type Instance = (typeof INSTANCES)[number]
/** Proxy request headers for the test only: which instance to use, and the client address the proxy should report. */
const PIN = "x-test-pin-instance"
const CLIENT_IP = "x-test-client-ip"

// ---------------------------------------------------------------------------------------------------------------
// The round-robin proxy: forwards to the instances in turn (or to the pinned one), appends the client address to
// X-Forwarded-For and sets X-Forwarded-Host/-Proto, as a load balancer in front of the app would.

interface Proxy {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** The instances' ports, instance 1 first. */
  upstreams: number[]
  close(): Promise<void>
}

async function startProxy(): Promise<Proxy> {
  const upstreams: number[] = []
  let turn = 0
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const pinned = Number(req.headers[PIN])
    const index = pinned ? pinned - 1 : turn++ % upstreams.length
    const port = upstreams[index]
    if (port === undefined) {
      res.writeHead(502).end()
      return
    }
    const client = String(req.headers[CLIENT_IP] ?? req.socket.remoteAddress)
    const headers = { ...req.headers }
    delete headers[PIN]
    delete headers[CLIENT_IP]
    headers["x-forwarded-for"] = [req.headers["x-forwarded-for"], client].filter(Boolean).join(", ")
    headers["x-forwarded-host"] = req.headers.host
    headers["x-forwarded-proto"] = "http"
    const upstream = httpRequest(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
        answer.pipe(res)
      },
    )
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  }
  const server: Server = createServer(forward)
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upstreams,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The three app processes.

interface AppProcess {
  instance: number
  child: ChildProcess
  port: number
  stderr: () => string
}

/**
 * Forks one instance (added to `forked` at once, so it is stopped even if the start fails) and resolves once it
 * listens; rejects with its stderr if it exits or stays silent.
 */
function startInstance(instance: number, env: NodeJS.ProcessEnv, forked: ChildProcess[]): Promise<AppProcess> {
  const child = fork(APP, [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env, MI_INSTANCE: String(instance) },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  })
  forked.push(child)
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  child.stdout?.resume()
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`instance ${instance} did not start: ${stderr}`)), 50_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      fail(new Error(`instance ${instance} exited with ${code}: ${stderr}`))
    })
    child.on("message", (message: { port?: number }) => {
      if (typeof message.port !== "number") return
      clearTimeout(timer)
      done({ instance, child, port: message.port, stderr: () => stderr })
    })
  })
}

/** Asks the instance to stop; kills it if it has not exited within 5 s. Resolves once it has exited. */
async function stopInstance(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((done) => child.once("exit", () => done()))
  if (child.connected) child.send("stop")
  else child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
  await exited
  clearTimeout(timer)
}

function warningsOf(child: ChildProcess): Promise<string[]> {
  return new Promise((done) => {
    const listen = (message: { warnings?: string[] }) => {
      if (!Array.isArray(message.warnings)) return
      child.off("message", listen)
      done(message.warnings)
    }
    child.on("message", listen)
    child.send("warnings")
  })
}

// ---------------------------------------------------------------------------------------------------------------
// A browser: a cookie jar, one simulated client address, requests through the proxy.

interface Answer {
  status: number
  location: string | null
  instance: string | null
  headers: Headers
  setCookies: string[]
  body: string
  json: () => unknown
}

class Browser {
  readonly cookies: Record<string, string> = {}
  constructor(
    private readonly proxy: Proxy,
    readonly ip: string,
  ) {}

  cookieHeader(): string {
    return Object.entries(this.cookies)
      .map(([name, value]) => `${name}=${value}`)
      .join("; ")
  }

  /** `path` on the proxy (or an absolute URL), pinned to `instance` when given; keeps the cookies it is sent. */
  async go(
    path: string,
    options: { instance?: number; form?: Record<string, string>; cookie?: string; headers?: Record<string, string> },
  ): Promise<Answer> {
    const headers: Record<string, string> = { [CLIENT_IP]: this.ip, ...options.headers }
    if (options.instance) headers[PIN] = String(options.instance)
    const cookie = options.cookie ?? this.cookieHeader()
    if (cookie) headers.cookie = cookie
    if (options.form) headers["content-type"] = "application/x-www-form-urlencoded"
    const response = await fetch(new URL(path, this.proxy.origin), {
      method: options.form ? "POST" : "GET",
      redirect: "manual",
      headers,
      body: options.form ? new URLSearchParams(options.form).toString() : undefined,
    })
    const setCookies = response.headers.getSetCookie()
    for (const line of setCookies) {
      const [pair] = line.split(";")
      const eq = pair!.indexOf("=")
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      if (value === "" || /max-age=0(;|$)/i.test(line)) delete this.cookies[name]
      else this.cookies[name] = value
    }
    const body = await response.text()
    return {
      status: response.status,
      location: response.headers.get("location"),
      instance: response.headers.get("x-instance"),
      headers: response.headers,
      setCookies,
      body,
      json: () => JSON.parse(body) as unknown,
    }
  }

  async csrf(base: string, instance?: number): Promise<string> {
    const answer = await this.go(`${base}/csrf`, { instance })
    expect(answer.status).toBe(200)
    return (answer.json() as { csrfToken: string }).csrfToken
  }
}

/** The Set-Cookie line for `name` in `answer`, if any. */
function setCookieFor(answer: Answer, name: string): string | undefined {
  return answer.setCookies.find((line) => line.startsWith(`${name}=`))
}

/** A fresh client address per browser, so no two tests share a rate-limit bucket. */
let nextClient = 10
const clientIp = () => `203.0.113.${nextClient++}`

// ---------------------------------------------------------------------------------------------------------------

let smtp: SmtpFixture
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(async () => smtp?.stop())

interface Backend {
  name: string
  service: typeof POSTGRES
  /** Prepares the shared storage; returns the instances' env and the teardown. */
  prepare(): Promise<{ env: NodeJS.ProcessEnv; teardown: () => Promise<void> }>
}

const backends: Backend[] = [
  {
    name: "PostgreSQL",
    service: POSTGRES,
    async prepare() {
      const schema = `gatehouse_instances_${randomSuffix()}`
      const pool = new Pool({ connectionString: DATABASE_URL, max: 2 })
      await migrate(pool, { schema })
      return {
        env: { MI_BACKEND: "postgres", MI_SCHEMA: schema, DATABASE_URL },
        teardown: async () => {
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
          await pool.end()
        },
      }
    },
  },
  {
    // Every query of the three instances through PgBouncer in transaction pooling mode; migrate() runs direct.
    name: "PostgreSQL through PgBouncer",
    service: PGBOUNCER,
    async prepare() {
      const schema = `gatehouse_instances_${randomSuffix()}`
      const pool = new Pool({ connectionString: DATABASE_URL, max: 2 })
      await migrate(pool, { schema })
      return {
        env: { MI_BACKEND: "postgres", MI_SCHEMA: schema, DATABASE_URL: PGBOUNCER_URL },
        teardown: async () => {
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
          await pool.end()
        },
      }
    },
  },
  {
    name: "Redis",
    service: REDIS,
    async prepare() {
      const prefix = `gatehouse-instances-${randomSuffix()}:`
      return {
        env: { MI_BACKEND: "redis", MI_PREFIX: prefix, REDIS_URL },
        teardown: async () => {
          const client = new Redis(REDIS_URL)
          const keys = await client.keys(`${prefix}*`)
          if (keys.length > 0) await client.del(...keys)
          await client.quit()
        },
      }
    },
  },
  {
    // The cluster layout: a user's keys in one slot, everything else spread over three masters (with replicas).
    name: "a Redis Cluster",
    service: REDIS_CLUSTER,
    async prepare() {
      const prefix = `gatehouse-instances-${randomSuffix()}:`
      return {
        env: { MI_BACKEND: "redis-cluster", MI_PREFIX: prefix, REDIS_CLUSTER_URL },
        teardown: async () => {
          const seed = new URL(REDIS_CLUSTER_URL)
          const client = new Cluster([{ host: seed.hostname, port: Number(seed.port) }])
          await Promise.all(
            client.nodes("master").map(async (node) => {
              const keys = await node.keys(`${prefix}*`)
              if (keys.length > 0) await Promise.all(keys.map((key) => node.del(key)))
            }),
          )
          await client.quit()
        },
      }
    },
  },
]

for (const backend of backends) {
  describeWithService(backend.service, `three instances sharing ${backend.name}`, () => {
    let proxy: Proxy
    const processes: ChildProcess[] = []
    let apps: AppProcess[] = []
    let teardown: (() => Promise<void>) | undefined

    beforeAll(async () => {
      proxy = await startProxy()
      const prepared = await backend.prepare()
      teardown = prepared.teardown
      const env: NodeJS.ProcessEnv = {
        ...prepared.env,
        NODE_ENV: "production",
        AUTH_SECRET: SECRET,
        AUTH_URL: `${proxy.origin}/auth`,
        MI_SMTP_PORT: String(smtp.port),
      }
      // In parallel; afterAll stops every forked process, also when one of them failed to start.
      apps = await Promise.all(INSTANCES.map((instance) => startInstance(instance, env, processes)))
      proxy.upstreams.push(...apps.map((app) => app.port))
    }, 60_000)

    afterAll(async () => {
      await Promise.all(processes.map(stopInstance))
      for (const child of processes) expect(child.exitCode !== null || child.signalCode !== null).toBe(true)
      await proxy?.close()
      await teardown?.()
    }, 30_000)

    it("spreads requests over the three instances, which see the client through the proxy (trust proxy)", async () => {
      const browser = new Browser(proxy, clientIp())
      const seen = []
      for (let i = 0; i < 3; i++) {
        const answer = await browser.go("/whoami", { headers: { "x-forwarded-for": "198.51.100.66" } })
        expect(answer.status).toBe(200)
        const who = answer.json() as { instance: string; ip: string; host: string; protocol: string }
        // The proxy's hop is the one trusted: a client's own X-Forwarded-For entry never becomes its address.
        expect(who).toEqual({ instance: answer.instance, ip: browser.ip, host: "127.0.0.1", protocol: "http" })
        seen.push(answer.instance)
      }
      expect(seen.sort()).toEqual(["1", "2", "3"])
      for (const instance of INSTANCES) {
        expect((await browser.go("/whoami", { instance })).instance).toBe(String(instance))
      }
    })

    describe.each([
      ["database", "/auth", "authjs.session-token"],
      ["JWT", "/jwt", JWT_SESSION_COOKIE],
    ])("%s sessions", (strategy, base, cookieName) => {
      /**
       * Signs `username` in with credentials through `instance` (round robin when undefined); returns the session
       * cookie value.
       */
      async function signIn(browser: Browser, username: string, instance: Instance | undefined): Promise<string> {
        const csrfToken = await browser.csrf(base, instance)
        const answer = await browser.go(`${base}/callback/credentials`, {
          instance,
          form: { csrfToken, username, password: MULTI_INSTANCE_PASSWORD, callbackUrl: "/welcome" },
        })
        if (instance) expect(answer.instance).toBe(String(instance))
        expect(answer.status).toBe(302)
        expect(answer.location).toBe(`${proxy.origin}/welcome`)
        const value = browser.cookies[cookieName]
        expect(value).toBeTruthy()
        return value!
      }

      /** GET `<base>/session` through `instance` with `cookie` (the browser's own cookies by default). */
      async function readSession(browser: Browser, instance: Instance | undefined, cookie?: string) {
        const answer = await browser.go(`${base}/session`, {
          instance,
          cookie: cookie === undefined ? undefined : `${cookieName}=${cookie}`,
        })
        if (instance) expect(answer.instance).toBe(String(instance))
        expect(answer.status).toBe(200)
        const session = answer.json() as { user?: { email?: string } } | null
        return { instance: answer.instance, email: session?.user?.email ?? null }
      }

      /** The session's user email as `instance` reads it from `cookie` (the browser's own cookies by default). */
      async function emailSeenBy(browser: Browser, instance: Instance, cookie?: string): Promise<string | null> {
        return (await readSession(browser, instance, cookie)).email
      }

      async function revoke(browser: Browser, id: string, instance: Instance | undefined): Promise<Answer> {
        const csrfToken = await browser.csrf(base, instance)
        return browser.go(`${base}/sessions/revoke`, { instance, form: { csrfToken, id } })
      }

      it("sign in through instance 1, read through 2, sign out through 3: every instance sees it", async () => {
        const username = `ada-${strategy}-${randomSuffix()}`
        const email = `${username}@instances.test`
        const browser = new Browser(proxy, clientIp())
        const cookie = await signIn(browser, username, 1)

        expect(await emailSeenBy(browser, 2)).toBe(email)
        const list = await browser.go(`${base}/sessions`, { instance: 2 })
        expect(list.status).toBe(200)
        const sessions = list.json() as Array<{ id: string; current: boolean }>
        expect(sessions).toHaveLength(1)
        expect(sessions[0]!.current).toBe(true)
        if (strategy === "JWT") expect(sessions[0]!.id).toBe("jwt")
        else expect(sessions[0]!.id).toMatch(/^[A-Za-z0-9_-]{22}$/)

        const csrfToken = await browser.csrf(base, 3)
        const signOut = await browser.go(`${base}/signout`, { instance: 3, form: { csrfToken, callbackUrl: "/bye" } })
        expect(signOut.instance).toBe("3")
        expect(signOut.status).toBe(302)
        expect(signOut.location).toBe(`${proxy.origin}/bye`)
        expect(setCookieFor(signOut, cookieName)).toMatch(/^[^=]+=; .*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i)
        expect(browser.cookies[cookieName]).toBeUndefined()

        for (const instance of INSTANCES) expect(await emailSeenBy(browser, instance)).toBeNull()
        if (strategy === "database") {
          // The row is gone: a copy of the old cookie is refused by every instance too.
          for (const instance of INSTANCES) expect(await emailSeenBy(browser, instance, cookie)).toBeNull()
        } else {
          // A JWT is stateless: signing out clears this browser's cookie, and a copy kept elsewhere stays valid until
          // it expires or "sign out everywhere" (below) writes the user's watermark to the shared store.
          expect(await emailSeenBy(browser, 1, cookie)).toBe(email)
        }
      })

      it("through the round-robin proxy alone: every instance serves the same session and its revocation", async () => {
        const username = `barbara-${strategy}-${randomSuffix()}`
        const email = `${username}@instances.test`
        const browser = new Browser(proxy, clientIp())
        // The CSRF token comes from one instance and is checked by the next: the same secret on every instance.
        const cookie = await signIn(browser, username, undefined)
        const reads = [await readSession(browser, undefined), await readSession(browser, undefined)]
        reads.push(await readSession(browser, undefined))
        expect(reads.map((read) => read.email)).toEqual([email, email, email])
        expect(reads.map((read) => read.instance).sort()).toEqual(["1", "2", "3"])

        const answer = await revoke(browser, "all", undefined)
        expect(answer.status).toBe(200)
        expect(answer.json()).toEqual({ ok: true })
        const after = [await readSession(browser, undefined, cookie), await readSession(browser, undefined, cookie)]
        after.push(await readSession(browser, undefined, cookie))
        expect(after.map((read) => read.email)).toEqual([null, null, null])
        expect(after.map((read) => read.instance).sort()).toEqual(["1", "2", "3"])
      })

      it('"sign out other devices" through one instance ends the other sessions on all three', async () => {
        const username = `grace-${strategy}-${randomSuffix()}`
        const email = `${username}@instances.test`
        const laptop = new Browser(proxy, clientIp())
        const phone = new Browser(proxy, clientIp())
        await signIn(laptop, username, 1)
        const phoneCookie = await signIn(phone, username, 2)
        if (strategy === "database") {
          const list = await laptop.go(`${base}/sessions`, { instance: 3 })
          expect((list.json() as unknown[]).length).toBe(2)
        }
        for (const instance of INSTANCES) expect(await emailSeenBy(phone, instance, phoneCookie)).toBe(email)

        const answer = await revoke(laptop, "others", 3)
        expect(answer.instance).toBe("3")
        expect(answer.status).toBe(200)
        expect(answer.json()).toEqual({ ok: true })
        if (strategy === "JWT") {
          // The laptop's cookie is re-issued with a session epoch after the watermark.
          expect(setCookieFor(answer, cookieName)).toMatch(new RegExp(`^${cookieName}=[^;]+;`))
        }

        for (const instance of INSTANCES) {
          expect(await emailSeenBy(phone, instance, phoneCookie)).toBeNull()
          expect(await emailSeenBy(laptop, instance)).toBe(email)
        }
        if (strategy === "database") {
          const list = await laptop.go(`${base}/sessions`, { instance: 1 })
          expect((list.json() as Array<{ current: boolean }>).map((s) => s.current)).toEqual([true])
        }
      })

      it('"sign out everywhere" through one instance ends every session on all three; a new sign-in works', async () => {
        const username = `linus-${strategy}-${randomSuffix()}`
        const email = `${username}@instances.test`
        const laptop = new Browser(proxy, clientIp())
        const phone = new Browser(proxy, clientIp())
        const laptopCookie = await signIn(laptop, username, 1)
        const phoneCookie = await signIn(phone, username, 2)
        // Another user's session is not touched.
        const other = new Browser(proxy, clientIp())
        const otherCookie = await signIn(other, `${username}-other`, 3)

        const answer = await revoke(laptop, "all", 3)
        expect(answer.status).toBe(200)
        expect(answer.json()).toEqual({ ok: true })
        expect(setCookieFor(answer, cookieName)).toMatch(/^[^=]+=; /)
        expect(laptop.cookies[cookieName]).toBeUndefined()

        for (const instance of INSTANCES) {
          expect(await emailSeenBy(laptop, instance, laptopCookie)).toBeNull()
          expect(await emailSeenBy(phone, instance, phoneCookie)).toBeNull()
          expect(await emailSeenBy(other, instance, otherCookie)).toBe(`${username}-other@instances.test`)
        }

        // Signing in again afterwards (through another instance) is not caught by the revocation.
        await signIn(phone, username, 2)
        for (const instance of INSTANCES) expect(await emailSeenBy(phone, instance)).toBe(email)
      })
    })

    it("with session.cache, another instance's sign-out is seen only after the ttl (the documented window)", async () => {
      const browser = new Browser(proxy, clientIp())
      const username = `cached-${randomSuffix()}`
      const csrfToken = await browser.csrf("/cached", 1)
      const signIn = await browser.go("/cached/callback/credentials", {
        instance: 1,
        form: { csrfToken, username, password: MULTI_INSTANCE_PASSWORD, callbackUrl: "/" },
      })
      expect(signIn.status).toBe(302)
      const cookie = `${CACHED_SESSION_COOKIE}=${browser.cookies[CACHED_SESSION_COOKIE]}`
      const emailOn = async (instance: number) => {
        const answer = await browser.go("/cached/session", { instance, cookie })
        expect(answer.instance).toBe(String(instance))
        return (answer.json() as { user?: { email?: string } } | null)?.user?.email ?? null
      }
      // Instances 1 and 2 read (and cache) the session.
      expect(await emailOn(1)).toBe(`${username}@instances.test`)
      expect(await emailOn(2)).toBe(`${username}@instances.test`)

      const signOut = await browser.go("/cached/signout", {
        instance: 3,
        form: { csrfToken: await browser.csrf("/cached", 3) },
      })
      expect(signOut.status).toBe(302)
      expect(await emailOn(3)).toBeNull()
      // The row is gone, but instances 1 and 2 still answer from their cache (ttl 300 s).
      expect(await emailOn(1)).toBe(`${username}@instances.test`)
      expect(await emailOn(2)).toBe(`${username}@instances.test`)
    })

    describe('rate limits (rateLimit.store: "adapter")', () => {
      it("count across the three instances: the 11th credentials POST from one client is limited", async () => {
        const browser = new Browser(proxy, clientIp())
        const csrfToken = await browser.csrf("/auth", 1)
        const answers: Answer[] = []
        for (let i = 0; i < 11; i++) {
          const instance = (i % 3) + 1
          answers.push(
            await browser.go("/auth/callback/credentials", {
              instance,
              // A client's own X-Forwarded-For entry changes nothing: the proxy's hop is the one trusted.
              headers: { "x-forwarded-for": `198.51.100.${i}` },
              form: {
                csrfToken,
                username: `counted-${i}-${randomSuffix()}`,
                password: MULTI_INSTANCE_PASSWORD,
                callbackUrl: "/welcome",
              },
            }),
          )
        }
        // Each instance saw at most four of them: only a shared count reaches 11.
        expect(answers.map((a) => a.instance)).toEqual(["1", "2", "3", "1", "2", "3", "1", "2", "3", "1", "2"])
        for (const answer of answers.slice(0, 10)) {
          expect(answer.status).toBe(302)
          expect(answer.location).toBe(`${proxy.origin}/welcome`)
        }
        const limited = answers[10]!
        expect(limited.status).toBe(302)
        const location = new URL(limited.location!)
        expect(`${location.origin}${location.pathname}`).toBe(`${proxy.origin}/auth/signin`)
        expect(location.searchParams.get("error")).toBe("RateLimited")
        const retryAfter = Number(limited.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThan(0)
        expect(retryAfter).toBeLessThanOrEqual(60)
        expect(location.searchParams.get("retry")).toBe(String(retryAfter))
        expect(setCookieFor(limited, "authjs.session-token")).toBeUndefined()

        // Another client, on the same instance, is not limited.
        const other = new Browser(proxy, clientIp())
        const otherToken = await other.csrf("/auth", 2)
        const allowed = await other.go("/auth/callback/credentials", {
          instance: 2,
          form: { csrfToken: otherToken, username: `other-${randomSuffix()}`, password: MULTI_INSTANCE_PASSWORD },
        })
        expect(allowed.status).toBe(302)
        expect(new URL(allowed.location!).searchParams.get("error")).toBeNull()
        expect(other.cookies["authjs.session-token"]).toBeTruthy()
      })

      it("count emails to one address across the three instances: the 4th request sends nothing", async () => {
        const email = `ida-${randomSuffix()}@instances.test`
        smtp.clear()
        const answers: Answer[] = []
        for (const instance of [1, 2, 3, 1]) {
          const browser = new Browser(proxy, clientIp())
          const csrfToken = await browser.csrf("/auth", instance)
          answers.push(await browser.go("/auth/signin/nodemailer", { instance, form: { csrfToken, email } }))
        }
        for (const answer of answers.slice(0, 3)) {
          expect(answer.location).toBe(`${proxy.origin}/auth/verify-request?provider=nodemailer&type=email`)
        }
        const limited = new URL(answers[3]!.location!)
        expect(`${limited.origin}${limited.pathname}`).toBe(`${proxy.origin}/auth/signin`)
        expect(limited.searchParams.get("error")).toBe("RateLimited")
        const received = []
        for (let i = 0; i < 3; i++) received.push(await smtp.nextMessage())
        expect(received.map((m) => m.envelope.rcptTo)).toEqual([[email], [email], [email]])
        expect(smtp.messages).toHaveLength(3)
      })
    })

    describe("magic links", () => {
      /** Requests a link for `email` through `instance`; returns the link from the real SMTP server. */
      async function requestLink(browser: Browser, email: string, instance: Instance): Promise<URL> {
        smtp.clear()
        const csrfToken = await browser.csrf("/auth", instance)
        const answer = await browser.go("/auth/signin/nodemailer", {
          instance,
          form: { csrfToken, email, callbackUrl: "/inbox" },
        })
        expect(answer.instance).toBe(String(instance))
        expect(answer.status).toBe(302)
        expect(answer.location).toBe(`${proxy.origin}/auth/verify-request?provider=nodemailer&type=email`)
        const message = await smtp.nextMessage()
        expect(message.envelope.rcptTo).toEqual([email])
        const link = new URL(signInLinkOf(message))
        // Built from AUTH_URL, the same on every instance: the proxy, never an instance's own address.
        expect(link.origin).toBe(proxy.origin)
        expect(link.pathname).toBe("/auth/callback/nodemailer")
        return link
      }

      /** GET the link's confirmation page on `instance`; returns the form to POST. */
      async function confirmationForm(browser: Browser, link: URL, instance: Instance) {
        const page = await browser.go(link.href, { instance })
        expect(page.instance).toBe(String(instance))
        expect(page.status).toBe(200)
        return confirmFormOf(page.body)
      }

      it("works once across the three instances: used on instance 2, replayed on 3 and 1", async () => {
        const email = `hedy-${randomSuffix()}@instances.test`
        const browser = new Browser(proxy, clientIp())
        const link = await requestLink(browser, email, 1)

        const form = await confirmationForm(browser, link, 2)
        const used = await browser.go(form.action, { instance: 2, form: form.fields })
        expect(used.instance).toBe("2")
        expect(used.status).toBe(302)
        expect(used.location).toBe(`${proxy.origin}/inbox`)
        expect(browser.cookies["authjs.session-token"]).toBeTruthy()
        const session = await browser.go("/auth/session", { instance: 3 })
        expect((session.json() as { user: { email: string } }).user.email).toBe(email)

        const cookie = browser.cookieHeader()
        for (const instance of [3, 1] as const) {
          const attacker = new Browser(proxy, clientIp())
          // Every instance knows the link was used (the mark is in the shared store) and says so at once...
          const page = await attacker.go(link.href, { instance })
          expect(page.instance).toBe(String(instance))
          expect(page.status).toBe(403)
          expect(page.body).toContain("This link was already used")
          // ... and the form of the first visit, posted again, is refused.
          const replay = await attacker.go(form.action, { instance, form: form.fields, cookie })
          expect(replay.instance).toBe(String(instance))
          expect(replay.status).toBe(302)
          expect(replay.location).toBe(`${proxy.origin}/auth/error?error=Verification`)
          expect(setCookieFor(replay, "authjs.session-token")).toBeUndefined()
        }
      })

      it("posted to all three instances at once, it signs in exactly once", async () => {
        const email = `katherine-${randomSuffix()}@instances.test`
        const browser = new Browser(proxy, clientIp())
        const link = await requestLink(browser, email, 2)
        const form = await confirmationForm(browser, link, 1)
        const cookie = browser.cookieHeader()

        const answers = await Promise.all(
          INSTANCES.map((instance) =>
            new Browser(proxy, browser.ip).go(form.action, { instance, form: form.fields, cookie }),
          ),
        )
        expect(answers.map((a) => a.instance)).toEqual(["1", "2", "3"])
        const won = answers.filter((a) => a.location === `${proxy.origin}/inbox`)
        const lost = answers.filter((a) => a.location === `${proxy.origin}/auth/error?error=Verification`)
        expect(won).toHaveLength(1)
        expect(lost).toHaveLength(2)
        expect(setCookieFor(won[0]!, "authjs.session-token")).toBeTruthy()
        for (const answer of lost) expect(setCookieFor(answer, "authjs.session-token")).toBeUndefined()
      })
    })

    // Last: by now every kind of write (sessions, watermarks, verification tokens) has reached the store.
    it("no instance fell back to a per-process store", async () => {
      expect(apps).toHaveLength(3)
      for (const app of apps) {
        expect(await warningsOf(app.child)).not.toContain("memory-store-single-process")
        expect(app.stderr()).not.toContain("memory-store-single-process")
      }
    })
  })
}

// The same secrets on every instance, and how to rotate them (README "Deploying several instances"): instances that
// hold [old], [old, new], [new, old] and [new] side by side, as during the three rollouts of a rotation.
describeWithService(POSTGRES, "rotating AUTH_SECRET across instances", () => {
  const OLD = "several-instances-old-secret-0123456789abcdefghijkl"
  const NEW = "several-instances-new-secret-0123456789abcdefghijkl"
  // envSecrets puts AUTH_SECRET_1 before AUTH_SECRET.
  const lists: Array<[string, NodeJS.ProcessEnv]> = [
    ["[old]", { AUTH_SECRET: OLD }],
    ["[old, new]", { AUTH_SECRET: NEW, AUTH_SECRET_1: OLD }],
    ["[new, old]", { AUTH_SECRET: OLD, AUTH_SECRET_1: NEW }],
    ["[new]", { AUTH_SECRET: NEW }],
  ]
  let proxy: Proxy
  const processes: ChildProcess[] = []
  let teardown: (() => Promise<void>) | undefined

  beforeAll(async () => {
    proxy = await startProxy()
    const prepared = await backends[0]!.prepare()
    teardown = prepared.teardown
    const apps = await Promise.all(
      lists.map(([, secrets], i) =>
        startInstance(
          i + 1,
          {
            ...prepared.env,
            ...secrets,
            NODE_ENV: "production",
            AUTH_URL: `${proxy.origin}/auth`,
            MI_SMTP_PORT: String(smtp.port),
          },
          processes,
        ),
      ),
    )
    proxy.upstreams.push(...apps.map((app) => app.port))
  }, 60_000)

  afterAll(async () => {
    await Promise.all(processes.map(stopInstance))
    await proxy?.close()
    await teardown?.()
  }, 30_000)

  it("a JWT session issued by one list is read by another exactly when they share the encrypting secret", async () => {
    const cookies: string[] = []
    for (const [i] of lists.entries()) {
      const browser = new Browser(proxy, clientIp())
      const csrfToken = await browser.csrf("/jwt", i + 1)
      const answer = await browser.go("/jwt/callback/credentials", {
        instance: i + 1,
        form: { csrfToken, username: `rotating-${i}`, password: MULTI_INSTANCE_PASSWORD, callbackUrl: "/" },
      })
      expect(answer.status).toBe(302)
      cookies.push(browser.cookies[JWT_SESSION_COOKIE]!)
    }
    const readable: string[] = []
    for (const [from, cookie] of cookies.entries()) {
      for (const to of lists.keys()) {
        const answer = await new Browser(proxy, clientIp()).go("/jwt/session", {
          instance: to + 1,
          cookie: `${JWT_SESSION_COOKIE}=${cookie}`,
        })
        expect(answer.status).toBe(200)
        const email = (answer.json() as { user?: { email?: string } } | null)?.user?.email
        if (email === `rotating-${from}@instances.test`) readable.push(`${lists[from]![0]} -> ${lists[to]![0]}`)
      }
    }
    // Each rollout step only puts neighbours side by side; skipping a step ([old] next to [new, old]) loses sessions.
    expect(readable.sort()).toEqual(
      [
        "[old] -> [old]",
        "[old] -> [old, new]",
        "[old] -> [new, old]",
        "[old, new] -> [old]",
        "[old, new] -> [old, new]",
        "[old, new] -> [new, old]",
        "[new, old] -> [old, new]",
        "[new, old] -> [new, old]",
        "[new, old] -> [new]",
        "[new] -> [old, new]",
        "[new] -> [new, old]",
        "[new] -> [new]",
      ].sort(),
    )
  })

  it("a CSRF token from an instance on [old] is accepted by one on [new, old], and refused by one on [new]", async () => {
    const browser = new Browser(proxy, clientIp())
    const csrfToken = await browser.csrf("/auth", 1)
    const form = { csrfToken, username: "csrf-rotation", password: MULTI_INSTANCE_PASSWORD, callbackUrl: "/" }
    const accepted = await browser.go("/auth/callback/credentials", { instance: 3, form })
    expect(accepted.status).toBe(302)
    expect(accepted.location).toBe(`${proxy.origin}/`)
    const refused = await new Browser(proxy, clientIp()).go("/auth/callback/credentials", {
      instance: 4,
      form,
      cookie: `authjs.csrf-token=${browser.cookies["authjs.csrf-token"]}`,
    })
    expect(refused.status).toBe(302)
    expect(refused.location).toContain("error=MissingCSRF")
  })
})
