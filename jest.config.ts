// Jest runs the TypeScript sources as CommonJS; the ESM-only dependencies are transformed too.
// Type errors are caught by `tsc --noEmit` (npm test runs it first), so ts-jest only transpiles.
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
  setupFiles: ["<rootDir>/__tests__/setup-env.ts"],
}

export default config
