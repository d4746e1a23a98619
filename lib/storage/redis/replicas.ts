// Waiting for replicas: a write Redis acknowledged is on the master only until it replicates, and a master that dies
// before then takes it with it. A write that must survive a failover (a sign-in, a revocation, a single use) can be
// followed by WAIT on the same connection, so it is acknowledged only once enough replicas have it.
import type { Cluster, Redis } from "ioredis"

/** Whether `client` is an ioredis `Cluster` (its `isCluster` is true; a `Redis` client's is false). */
export const isCluster = (client: Redis | Cluster): client is Cluster => client.isCluster

/** The `waitForReplicas` option of the Redis adapter and store. */
export interface ReplicaWait {
  /** How many replicas must have the write (`WAIT numreplicas`). */
  replicas: number
  /** How long to wait for them, in milliseconds (`WAIT timeout`; default 500). Not reached in time: the call fails. */
  timeoutMs?: number
}

/** Checks the option; a bad one is the caller's mistake (a TypeError). */
export function checkReplicaWait(wait: ReplicaWait | undefined): ReplicaWait | undefined {
  if (wait === undefined) return undefined
  const { replicas, timeoutMs = 500 } = wait
  if (!Number.isInteger(replicas) || replicas < 1 || !Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw Object.assign(new TypeError("Invalid waitForReplicas"), { code: "ERR_INVALID_ARG_VALUE" })
  }
  return { replicas, timeoutMs }
}

/**
 * Resolves once `wait.replicas` replicas have every write made so far on the connection to the node that owns `key`
 * (the write just made there among them); rejects with code `NOREPLICAS` when they do not within the timeout. Without
 * `wait`, resolves at once.
 *
 * @example
 * ```ts
 * await client.set(key, value)
 * await replicated(client, { replicas: 1 }, key)
 * ```
 */
export async function replicated(client: Redis | Cluster, wait: ReplicaWait | undefined, key: string): Promise<void> {
  if (wait === undefined) return
  const timeout = wait.timeoutMs ?? 500
  // On a cluster WAIT has no key to be routed by: a pipeline sends it to the node of the keyed command before it.
  const acked = isCluster(client)
    ? ((await client.pipeline().pttl(key).wait(wait.replicas, timeout).exec()) ?? [])[1]?.[1]
    : await client.wait(wait.replicas, timeout)
  if (Number(acked) < wait.replicas) {
    throw Object.assign(new Error("The write did not reach enough replicas"), {
      code: "NOREPLICAS",
      cause: { replicas: wait.replicas, acknowledged: Number(acked), timeoutMs: timeout },
    })
  }
}
