// The functions of a folder that change a signed-in user's data, and whether they get that user through the
// accessor meant for changes. A function counts with what it refers to (under any local name, found by binding with
// the TypeScript checker) and with the functions of the folder it refers to, transitively: a helper that reads the
// door or refuses for its caller is part of the caller.
import { relative } from "node:path"
import ts from "typescript"

/** Where the functions that matter are declared: `file` (absolute) and the names it declares. */
export interface Named {
  file: string
  names: string[]
}

/** What a function of the folder reaches. */
export interface ChangeSite {
  /** `<file relative to root>#<function>` */
  site: string
  /** The adapter writers it names (sorted). */
  writers: string[]
  /** It reads who is signed in (a door reader or an accessor). */
  readsDoor: boolean
  /** It goes through an accessor for changes. */
  usesAccessor: boolean
}

interface Facts {
  writers: Set<string>
  door: boolean
  accessor: boolean
  calls: Set<ts.Symbol>
}

/** The function-valued top-level declarations of a source file, by their symbols. */
function functionsOf(checker: ts.TypeChecker, source: ts.SourceFile): Map<ts.Symbol, ts.Node> {
  const out = new Map<ts.Symbol, ts.Node>()
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name && statement.body) {
      const symbol = checker.getSymbolAtLocation(statement.name)
      if (symbol) out.set(symbol, statement)
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer
        if (!init || !ts.isIdentifier(declaration.name)) continue
        if (!ts.isArrowFunction(init) && !ts.isFunctionExpression(init)) continue
        const symbol = checker.getSymbolAtLocation(declaration.name)
        if (symbol) out.set(symbol, declaration)
      }
    }
  }
  return out
}

/** The declared symbol behind an identifier, through import and export aliases. */
function target(checker: ts.TypeChecker, node: ts.Identifier): ts.Symbol | undefined {
  const symbol = checker.getSymbolAtLocation(node)
  if (!symbol) return undefined
  const exported = checker.getExportSymbolOfSymbol(symbol)
  return exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
}

/** The symbols `named` declares, or an error naming what is missing (so a rename cannot empty the rule). */
function symbolsOf(program: ts.Program, checker: ts.TypeChecker, named: Named[]): Set<ts.Symbol> {
  const out = new Set<ts.Symbol>()
  for (const { file, names } of named) {
    const source = program.getSourceFile(file)
    const declared = source ? functionsOf(checker, source) : new Map<ts.Symbol, ts.Node>()
    for (const name of names) {
      const symbol = [...declared.keys()].find((s) => s.getName() === name)
      if (!symbol) throw new Error(`${file} declares no function ${name}`)
      out.add(symbol)
    }
  }
  return out
}

/**
 * Every top-level function of the files under `folder` (absolute), with the adapter writers it names (`x.linkAccount`,
 * `need(x.updateAuthenticator, …)`, `const { updateUser } = x`) and whether it reaches a door reader and an accessor,
 * itself or through the folder's functions it refers to.
 *
 * @example
 * ```ts
 * changeSites(program, LIB, join(LIB, "core/methods"), { writers, doorReaders, accessors })
 * ```
 */
export function changeSites(
  program: ts.Program,
  root: string,
  folder: string,
  rule: { writers: readonly string[]; doorReaders: Named[]; accessors: Named[] },
): ChangeSite[] {
  const checker = program.getTypeChecker()
  const writers = new Set(rule.writers)
  const doorReaders = symbolsOf(program, checker, rule.doorReaders)
  const accessors = symbolsOf(program, checker, rule.accessors)
  const units = new Map<ts.Symbol, { site: string; node: ts.Node }>()
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !source.fileName.startsWith(`${folder}/`)) continue
    for (const [symbol, node] of functionsOf(checker, source)) {
      units.set(symbol, { site: `${relative(root, source.fileName)}#${symbol.getName()}`, node })
    }
  }

  const direct = new Map<ts.Symbol, Facts>()
  for (const [symbol, { node }] of units) {
    const facts: Facts = { writers: new Set(), door: false, accessor: false, calls: new Set() }
    const visit = (child: ts.Node): void => {
      if (ts.isPropertyAccessExpression(child) && writers.has(child.name.text)) facts.writers.add(child.name.text)
      if (ts.isBindingElement(child) && ts.isObjectBindingPattern(child.parent)) {
        const name = child.propertyName ?? child.name
        if (ts.isIdentifier(name) && writers.has(name.text)) facts.writers.add(name.text)
      }
      if (ts.isIdentifier(child)) {
        const found = target(checker, child)
        if (found && accessors.has(found)) facts.accessor = facts.door = true
        else if (found && doorReaders.has(found)) facts.door = true
        else if (found && found !== symbol && units.has(found)) facts.calls.add(found)
      }
      ts.forEachChild(child, visit)
    }
    ts.forEachChild(node, visit)
    direct.set(symbol, facts)
  }

  const reach = (start: ts.Symbol): Facts => {
    const all: Facts = { writers: new Set(), door: false, accessor: false, calls: new Set() }
    const seen = new Set<ts.Symbol>()
    const stack = [start]
    while (stack.length > 0) {
      const next = stack.pop()!
      if (seen.has(next)) continue
      seen.add(next)
      const facts = direct.get(next)!
      for (const writer of facts.writers) all.writers.add(writer)
      all.door ||= facts.door
      all.accessor ||= facts.accessor
      stack.push(...facts.calls)
    }
    return all
  }

  return [...units.keys()]
    .map((symbol) => {
      const facts = reach(symbol)
      return {
        site: units.get(symbol)!.site,
        writers: [...facts.writers].sort(),
        readsDoor: facts.door,
        usesAccessor: facts.accessor,
      }
    })
    .sort((a, b) => a.site.localeCompare(b.site))
}
