// Redis adapter on ioredis: records as JSON under a key prefix, indexes kept in step by Lua scripts, TTLs on expiry.
// The methods live by the contract's groups (users.ts, sessions.ts, authenticators.ts); this file assembles them.
import type { Cluster, Redis } from "ioredis"
import type { AccountTokenAdapter, Adapter } from "../adapter"
import { auditMethods } from "./audit"
import { authenticatorMethods } from "./authenticators"
import { directoryMethods } from "./directory"
import { clusterSessionMethods } from "./cluster-sessions"
import { clusterUserMethods } from "./cluster-users"
import { keyLayout } from "./keys"
import type { RedisContext } from "./keys"
import { passwordMethods } from "./passwords"
import { sessionMethods } from "./sessions"
import { RedisStore } from "./store"
import { checkReplicaWait, isCluster } from "./replicas"
import type { ReplicaWait } from "./replicas"
import { twoFactorMethods } from "./two-factor"
import { userMethods } from "./users"

/** Options of {@link RedisAdapter}. */
export interface RedisAdapterOptions {
  /** Prepended to every key the adapter writes. Default `gatehouse:`. */
  prefix?: string
  /**
   * With replicas (a cluster, or a node with replicas behind Sentinel): the writes a failover must not lose (a new
   * session, a deleted one, a used verification token, a passkey counter, the store's `set`/`setMax`/`consume`) are
   * acknowledged only once this many replicas have them (`WAIT`); otherwise the call fails. Off by default.
   */
  waitForReplicas?: ReplicaWait
}

/**
 * Creates an adapter on an ioredis client. Keys (all under `prefix`): `user:<id>`, `email:<lower-cased email>`,
 * `account:<provider>:<providerAccountId>` (URI-encoded parts), `session:<token>`, `vt:<identifier>:<token>`,
 * `authenticator:<credentialID>`, `two-factor:<id>`, per-user sets `user-accounts:<id>`, `user-sessions:<id>`,
 * `user-authenticators:<id>`, the set `vt-email:<lower-cased email>` of an address's verification tokens (what
 * `deleteUser` deletes; it expires with its last token), the sorted set `users-by-email` (members `<lower-cased
 * email>\0<id>`, byte 0xFF for no email: the admin listing's order, prefix search and cursor; filled once from the
 * stored users when `listUsers` first finds it incomplete, which `users-by-email:ready` marks), the audit trail's
 * `audit:<id>`, `audit-all` and `audit-user:<userId>`, and for OIDC sign-ins the sets `idp-sid:<provider>:<sha256(sid)>` and
 * `idp-sub:<provider>:<sha256(sub)>` (what back-channel logout deletes; members that have gone are pruned when the set
 * is next written). Sessions and verification tokens expire with `PXAT` at their `expires`, so an expired one is
 * simply gone. Emails are stored as given and indexed lower-cased. Multi-key changes run as Lua scripts (atomic);
 * `useVerificationToken` is one `GETDEL` on a key built from identifier and token; `updateAccountTokens` swaps the
 * account record only while it is still the one read. Needs Redis 6.2+.
 *
 * With an ioredis `Cluster` the layout differs (`docs/guide/deploying.md`): a user's keys carry the hash tag
 * `{<id>}` (`user:{<id>}`, `user-sessions:{<id>}` a sorted set scored by expiry, ...), every script touches one slot,
 * and what spans two entities runs in steps ordered so that a crash between them grants no access and leaves no
 * session that revocation cannot find. A single node keeps the layout above: its data needs no migration.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis"
 * import { RedisAdapter } from "gatehouse-auth/adapters/redis"
 * const adapter = RedisAdapter(new Redis(process.env.REDIS_URL!), { prefix: "myapp:auth:" })
 * app.use("/auth", ExpressAuth({ adapter, providers: [GitHub] }))
 * ```
 */
export function RedisAdapter(
  client: Redis | Cluster,
  options: RedisAdapterOptions = {},
): Required<Adapter> & AccountTokenAdapter {
  const p = options.prefix ?? "gatehouse:"
  // ioredis reports a lost connection as an "error" event and reconnects by itself; commands issued meanwhile wait
  // (bounded by the core's adapterTimeout) or reject. This listener keeps an unheard event from being printed as
  // "Unhandled error event" on every reconnect attempt.
  if (client.listenerCount("error") === 0) client.on("error", () => undefined)
  const cluster = isCluster(client)
  const wait = checkReplicaWait(options.waitForReplicas)
  const ctx: RedisContext = { client, p, key: keyLayout(p, cluster), wait }
  const methods = {
    ...userMethods(ctx),
    ...sessionMethods(ctx),
    ...authenticatorMethods(ctx),
    ...twoFactorMethods(ctx),
    ...passwordMethods(ctx),
    ...auditMethods(ctx),
    ...directoryMethods(ctx),
  }
  return {
    store: RedisStore(client, { prefix: `${p}kv:`, waitForReplicas: wait }),
    ...methods,
    // On a cluster the methods whose scripts would span slots are replaced by ordered single-slot steps.
    ...(cluster ? { ...clusterUserMethods(ctx), ...clusterSessionMethods(ctx) } : {}),
  }
}

export default RedisAdapter
