// Starts and stops a Redis Cluster of 3 masters + 3 replicas on loopback ports, one redis-server process per node.
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface TestCluster {
  ports: number[]
  /** The master serving `slot`'s keys now, and its replica. */
  roles(): Array<{ port: number; role: "master" | "slave"; masterPort?: number }>
  /** Kills the node's process (SIGKILL): a crash, not a shutdown. */
  kill(port: number): void
  stop(): void
}

const cli = (port: number, ...args: string[]) =>
  spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8" }).stdout

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Starts the six nodes on `first`..`first + 5` and forms the cluster (`--cluster-replicas 1`). */
export async function startCluster(first: number, nodeTimeoutMs = 2000): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-failover-"))
  const ports = [0, 1, 2, 3, 4, 5].map((i) => first + i)
  const processes = new Map<number, ChildProcess>()
  for (const port of ports) {
    const args = ["--bind", "127.0.0.1", "--port", String(port), "--dir", dir, "--cluster-enabled", "yes"]
    args.push("--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", String(nodeTimeoutMs))
    args.push("--save", "", "--appendonly", "no")
    processes.set(port, spawn("redis-server", args, { stdio: "ignore" }))
  }
  await until(() => ports.every((port) => cli(port, "ping").trim() === "PONG"), 10_000, "the nodes")
  const created = spawnSync(
    "redis-cli",
    ["--cluster", "create", ...ports.map((port) => `127.0.0.1:${port}`), "--cluster-replicas", "1", "--cluster-yes"],
    { encoding: "utf8" },
  )
  if (created.status !== 0) throw new Error(`cluster create failed: ${created.stdout}${created.stderr}`)
  await until(() => ports.every((port) => cli(port, "cluster", "info").includes("cluster_state:ok")), 20_000, "ok")
  // Every replica in sync with its master, so a write can be confirmed by one from the start.
  await until(
    () =>
      ports
        .filter((port) => cli(port, "role").startsWith("master"))
        .every(
          (port) =>
            /connected_slaves:1/.test(cli(port, "info", "replication")) &&
            /state=online/.test(cli(port, "info", "replication")),
        ),
    20_000,
    "the replicas",
  )
  const cluster: TestCluster = {
    ports,
    roles() {
      const alive = ports.filter((port) => processes.get(port)?.exitCode === null && !processes.get(port)?.killed)
      const lines = cli(alive[0]!, "cluster", "nodes").trim().split("\n")
      const byId = new Map(lines.map((line) => [line.split(" ")[0]!, Number(line.split(" ")[1]!.split(/[:@]/)[1])]))
      return lines
        .filter((line) => !line.includes("fail"))
        .map((line) => {
          const [, address, flags, master] = line.split(" ")
          const port = Number(address!.split(/[:@]/)[1])
          return flags!.includes("master")
            ? { port, role: "master" as const }
            : { port, role: "slave" as const, masterPort: byId.get(master!) }
        })
    },
    kill(port) {
      processes.get(port)?.kill("SIGKILL")
    },
    stop() {
      for (const child of processes.values()) child.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return cluster
}
