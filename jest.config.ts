// Jest runs the TypeScript sources as CommonJS; the ESM-only dependencies are transformed too.
// Type errors are caught by `tsc --noEmit` (npm test runs it first), so ts-jest only transpiles.
import { availableParallelism } from "node:os"
import type { Config } from "jest"

const esmOnly = ["jose", "oauth4webapi", "oidc-provider", "nanoid", "@simplewebauthn", "@auth/core"].join("|")

const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/__tests__"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.[tj]sx?$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.jest.json" }],
    "^.+\\.mjs$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.jest.json" }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly})/)`],
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  testTimeout: 30_000,
  // Jest's default (one worker fewer than the cores) runs the suite in a single worker on a 2-core machine such as CI's.
  // Most suites wait on databases, browsers and local servers, so two workers there halve the wall time (measured on
  // 2026-11-27: 759 s in one worker, 409 s in two, every test passing in both).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  setupFiles: ["<rootDir>/__tests__/setup-env.ts"],
}

export default config
