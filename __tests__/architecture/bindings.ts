// Who uses a function, found by its binding rather than its name: a renamed import
// (`import { f as g }`), a namespace import (`s.f`), a value alias (`const g = f`, also in a destructuring), or a
// re-export under another name all lead back to the one declaration. The TypeScript checker resolves them.
import { relative } from "node:path"
import ts from "typescript"

/** The program of `files` with the repository's compiler options (type-checked, nothing emitted). */
export function programOf(files: string[]): ts.Program {
  return ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  })
}

/** The symbol an identifier stands for, through import and export aliases (an exported local is its export). */
function resolved(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  const exported = checker.getExportSymbolOfSymbol(symbol)
  return exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
}

/** The local a value alias binds (`const g = f`, `const { f: g } = s`), when `node` is the value it copies. */
function aliasBoundBy(node: ts.Node): ts.Identifier | undefined {
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) && parent.initializer === node && ts.isIdentifier(parent.name)) {
    return parent.name
  }
  if (ts.isBindingElement(parent) && ts.isIdentifier(parent.name) && (parent.propertyName ?? parent.name) === node) {
    return parent.name
  }
  return undefined
}

/** The property a shorthand destructuring (`const { f } = s`) copies, when `node` is its name. */
function shorthandProperty(checker: ts.TypeChecker, node: ts.Identifier): ts.Symbol | undefined {
  const parent = node.parent
  if (!ts.isBindingElement(parent) || parent.propertyName || parent.name !== node) return undefined
  if (!ts.isObjectBindingPattern(parent.parent)) return undefined
  return checker.getTypeAtLocation(parent.parent).getProperty(node.text)
}

/**
 * The files (relative to `root`) that refer, under any local name, to what `name` is bound to in `file`: a function
 * it declares, or one it imports (from another file or a package such as `node:crypto`). Declarations do not count
 * as uses; `file` itself counts only for a use beyond its own import.
 *
 * @example
 * ```ts
 * filesUsing(programOf(files), LIB, join(LIB, "core/kernel/secrets.ts"), "keyedHash") // ["core/kernel/csrf.ts", ...]
 * ```
 */
export function filesUsing(program: ts.Program, root: string, file: string, name: string): string[] {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const bound =
    source &&
    checker
      .getSymbolsInScope(source, ts.SymbolFlags.Value | ts.SymbolFlags.Alias)
      .find((s) => s.getName() === name && s.declarations?.some((d) => d.getSourceFile() === source))
  if (!bound) throw new Error(`${relative(root, file)} binds no ${name}`)
  const target = resolved(checker, bound)
  const targets = new Set([target])
  // The declaration and the import in `file` that define the binding are not uses.
  const declarations = new Set(
    [...(target.declarations ?? []), ...(bound.declarations ?? [])].map((d) => ts.getNameOfDeclaration(d)),
  )
  const users = new Set<string>()
  // Value aliases are bindings of their own: follow them until no new one appears.
  for (let grew = true; grew;) {
    grew = false
    for (const file of program.getSourceFiles()) {
      if (file.isDeclarationFile || !file.fileName.startsWith(root)) continue
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && !declarations.has(node)) {
          const symbol = checker.getSymbolAtLocation(node)
          const copied = shorthandProperty(checker, node)
          if (
            (symbol && targets.has(resolved(checker, symbol))) ||
            (copied && targets.has(resolved(checker, copied)))
          ) {
            users.add(relative(root, file.fileName))
            const alias = aliasBoundBy(node)
            const local = alias && checker.getSymbolAtLocation(alias)
            const aliasSymbol = local && resolved(checker, local)
            if (aliasSymbol && !targets.has(aliasSymbol)) {
              targets.add(aliasSymbol)
              grew = true
            }
          }
        }
        ts.forEachChild(node, visit)
      }
      visit(file)
    }
  }
  return [...users].sort()
}
