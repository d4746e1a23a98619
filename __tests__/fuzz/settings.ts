/** The fixed seed and case counts of the fuzz slice `npm test` runs (about 20,000 cases in total). */
export const FUZZ_SEED = 20261123

export const sliceRuns = {
  core: 3000,
  express: 1000,
  parser: 2500,
  /** Request targets, each sent to the eight apps of the path property (Express 4 and 5, every routing setting). */
  paths: 250,
} as const
