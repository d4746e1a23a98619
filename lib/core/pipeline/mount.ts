/**
 * Where a Gatehouse object's auth routes are mounted: the first mount a request shows is recorded (unless the config
 * fixes the base), and every later request must reach the same base.
 */
import { InvalidConfig } from "../../errors"
import type { ResolvedConfig } from "../kernel/config/types"
import type { Mount } from "./port"
import type { ConfigRuntime } from "./runtime"

/** The mount record of one Gatehouse object. */
export interface MountRecord {
  /**
   * The config server-side calls use: under `config.basePath` when set, else the recorded mount path, else `AUTH_URL`'s
   * path, else `/auth`.
   */
  resolved(runtime: ConfigRuntime): ResolvedConfig
  /** The config for a request that reached the auth routes: the first mount wins; another base is an error. */
  mounted(runtime: ConfigRuntime, mount: Mount): ResolvedConfig
}

function sameBase(a: string, b: string): boolean {
  // Frameworks route case-insensitively by default (Express: `/AUTH/session` reaches `app.use("/auth", ...)`).
  return a.toLowerCase() === b.toLowerCase()
}

/**
 * A new mount record, with nothing recorded yet.
 *
 * @example
 * ```ts
 * const mount = createMountRecord()
 * const config = mount.mounted(runtime, { at: "/auth", pathname: "/auth/session" })
 * ```
 */
export function createMountRecord(): MountRecord {
  let recordedBase: string | undefined
  return {
    resolved(rt) {
      if (rt.explicitBasePath) return rt.resolved
      // Without basePath, the resolved base is AUTH_URL's path when it has one, else "/auth".
      return rt.at(recordedBase ?? rt.resolved.basePath)
    },
    mounted(rt, mount) {
      const explicit = rt.explicitBasePath ? rt.resolved.basePath : rt.urlBasePath
      const established = explicit ?? recordedBase
      if (mount.at === undefined) {
        // The framework cannot tell where auth is mounted (Express 4's wildcard form): the path, chosen by the
        // client, must not decide it, so no base is recorded. The base is the configured or recorded one, else the
        // default.
        const base = established ?? rt.resolved.basePath
        if (mount.pathname.toLowerCase().startsWith(`${base.toLowerCase()}/`)) return rt.at(base)
        throw new InvalidConfig(
          "the request is not under the base path of this auth handler (with a wildcard mount, set config.basePath)",
          { cause: { basePath: base } },
        )
      }
      if (established === undefined) {
        recordedBase = mount.at
        return rt.at(mount.at)
      }
      if (sameBase(mount.at, established)) return rt.at(established)
      throw new InvalidConfig(
        explicit === undefined
          ? "this auth handler is already mounted at another path; give each mount its own Gatehouse(config)"
          : rt.explicitBasePath
            ? "config.basePath does not match where ExpressAuth is mounted"
            : `AUTH_URL's path (${explicit}) does not match where the auth handlers are mounted (${mount.at || "/"}): ` +
              "mount them there, or set AUTH_URL to the app's origin only (its path is only the mount path)",
        { cause: { basePath: established, mountedAt: mount.at } },
      )
    },
  }
}
