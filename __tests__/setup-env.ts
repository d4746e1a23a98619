// Test-wide environment: the demo app keeps its SQLite database in memory instead of .demo-data/.
process.env.DEMO_DB ??= ":memory:"
