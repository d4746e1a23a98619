// Minimal typing of the better-sqlite3 constructor for the tests and examples that open a database themselves: the
// package ships no types and @types/better-sqlite3 is absent. The adapter loads the driver untyped (driver.ts).
declare module "better-sqlite3" {
  interface Statement {
    run(...params: unknown[]): { changes: number | bigint }
    get(...params: unknown[]): unknown
    all(...params: unknown[]): unknown[]
  }
  interface Database {
    prepare(sql: string): Statement
    exec(sql: string): unknown
    close(): unknown
  }
  interface DatabaseConstructor {
    new (filename: string, options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number }): Database
  }
  const Database: DatabaseConstructor
  export default Database
}
