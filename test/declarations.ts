// The package's public face as TypeScript sees it once built: each entry point's .d.ts (the one
// package.json `exports` names), the names it exports, and every type of ours that its public
// signatures name, so that a test can require each such type to be exported beside them.
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist') + sep;

/** package.json `exports`: subpath → the import and types files. */
export const EXPORTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string; types: string }> }).exports;

/** The package name a user imports each entry by: `a2a-lite`, `a2a-lite/server`, … */
export const entryName = (subpath: string): string => (subpath === '.' ? 'a2a-lite' : `a2a-lite/${subpath.slice(2)}`);

export interface EntryFace {
  /** Every exported name, values and types, sorted. */
  names: string[];
  /** The exported names that are values (present at run time), sorted. */
  values: string[];
  /** `export → type of ours it names` for each such type the entry does not export. */
  unexported: string[];
}

/**
 * The face of each entry point, read from the built declaration files, and the errors a user's
 * compiler would find in them (checked as a strict project that does not skip them would).
 */
export function readFaces(): { faces: Map<string, EntryFace>; errors: string[] } {
  const files = Object.values(EXPORTS).map((entry) => join(ROOT, entry.types));
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: false, types: ['node'] });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName.startsWith(DIST) ?? true)
    .map((diagnostic) => `${diagnostic.file === undefined ? '' : `${where(diagnostic.file.fileName)}: `}${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
  const checker = program.getTypeChecker();
  const faces = new Map<string, EntryFace>();
  for (const [subpath, entry] of Object.entries(EXPORTS)) {
    const source = program.getSourceFile(join(ROOT, entry.types));
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`no declarations at ${entry.types} for ${entryName(subpath)}: build first`);
    const exported = checker.getExportsOfModule(module);
    const own = new Set(exported.map((symbol) => resolve(checker, symbol)));
    const unexported = new Set<string>();
    for (const symbol of exported) {
      for (const used of namedTypes(checker, resolve(checker, symbol))) {
        if (!own.has(used)) unexported.add(`${symbol.name} → ${used.name} (${where(used.declarations?.[0]?.getSourceFile().fileName ?? '')})`);
      }
    }
    faces.set(entryName(subpath), {
      names: exported.map((symbol) => symbol.name).sort(),
      values: exported.filter((symbol) => !typeOnly(symbol) && (resolve(checker, symbol).flags & ts.SymbolFlags.Value) !== 0).map((symbol) => symbol.name).sort(),
      unexported: [...unexported].sort(),
    });
  }
  return { faces, errors };
}

/** Whether a name is exported as a type alone (`export type { X }`), with no value at run time. */
function typeOnly(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) => ts.isExportSpecifier(declaration) && (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly));
}

function resolve(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Whether a symbol is declared in one of our built files (not in Node's types or another package). */
function isOurs(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) => declaration.getSourceFile().fileName.startsWith(DIST));
}

function where(file: string): string {
  return relative(ROOT, file).split(sep).join('/');
}

/**
 * The types of ours that the declarations of `symbol` name where a user can reach them: type
 * references, `import("…")` types and heritage clauses, in everything but private class members.
 * A `typeof value` is left out: what it names is a value, and the user sees its type spelled out.
 */
function namedTypes(checker: ts.TypeChecker, symbol: ts.Symbol): Set<ts.Symbol> {
  const found = new Set<ts.Symbol>();
  const add = (named: ts.Symbol | undefined): void => {
    if (named === undefined) return;
    const target = resolve(checker, named);
    if ((target.flags & ts.SymbolFlags.TypeParameter) === 0 && target !== symbol && isOurs(target)) found.add(target);
  };
  const visit = (node: ts.Node): void => {
    if (isPrivate(node)) return;
    if (ts.isTypeReferenceNode(node)) add(checker.getSymbolAtLocation(ts.isQualifiedName(node.typeName) ? node.typeName.right : node.typeName));
    else if (ts.isExpressionWithTypeArguments(node)) add(checker.getSymbolAtLocation(node.expression));
    else if (ts.isImportTypeNode(node)) {
      const type = checker.getTypeFromTypeNode(node);
      add(type.aliasSymbol ?? type.getSymbol());
    }
    ts.forEachChild(node, visit);
  };
  for (const declaration of symbol.declarations ?? []) visit(declaration);
  return found;
}

function isPrivate(node: ts.Node): boolean {
  if (!ts.isClassElement(node)) return false;
  if (node.name !== undefined && ts.isPrivateIdentifier(node.name)) return true;
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword);
}
