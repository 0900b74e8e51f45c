#!/usr/bin/env node
/**
 * Rewrites imports that reach past a folder's face (`lib/<x>/<inner>.ts` from outside `lib/<x>/`)
 * to import `lib/<x>/index.ts` instead, adding to that index.ts the exports it lacks
 * (`export { name } from './inner.ts'`, `export type` for types). The rule it serves is
 * `no-import-past-face` in .dependency-cruiser.cjs (docs/developer/faces.md).
 *
 * Usage: node scripts/through-faces.mjs [--dry-run], then `npx biome check --write .` (which merges
 * the imports now naming the same face) and `npm run lint`.
 *
 * Tests (`*.test.ts`, `test/`) are left alone: they may read a folder's inner modules. Default,
 * namespace, side-effect and dynamic imports past a face, `export *` from an inner module, and a name that
 * the face already exports for another declaration are listed for a person to settle.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = process.cwd();
const dryRun = process.argv.includes('--dry-run');
const SOURCE = /^(lib|bin|bench|functions|infra)\//;
const TEST = /\.test\.tsx?$|^test\//;
/** `lib/aws-sdk.ts` is the face of `lib/aws-sdk/` (see .dependency-cruiser.cjs). */
const OWN_FACES = { 'lib/aws-sdk.ts': 'aws-sdk' };

const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

const relative = (file) => path.relative(root, file).split(path.sep).join('/');
const withDot = (spec) => (spec.startsWith('.') ? spec : `./${spec}`);

/** The declaration an export of `file` stands for, aliases followed; undefined when not exported. */
function exported(file, name) {
  const source = program.getSourceFile(path.join(root, file));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return undefined;
  const symbol = checker.getExportsOfModule(moduleSymbol).find((s) => s.escapedName === name);
  if (!symbol) return undefined;
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Names an import or export declaration takes, or a reason it needs a person. */
function namesOf(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return { manual: 'side-effect import' };
    if (clause.name) return { manual: 'default import' };
    const bindings = clause.namedBindings;
    if (!bindings) return { names: [] };
    if (ts.isNamespaceImport(bindings)) return { manual: 'namespace import' };
    return { names: bindings.elements.map((e) => (e.propertyName ?? e.name).text) };
  }
  if (!node.exportClause) return { manual: 'export *' };
  if (ts.isNamespaceExport(node.exportClause)) return { manual: 'export * as' };
  return { names: node.exportClause.elements.map((e) => (e.propertyName ?? e.name).text) };
}

const additions = new Map(); // face -> Map(innerSpec -> Map(name -> isValue))
const edits = new Map(); // file -> [{start, end, text}]
const manual = [];

for (const source of program.getSourceFiles()) {
  const file = relative(source.fileName);
  if (!SOURCE.test(file) || TEST.test(file)) continue;
  const own = OWN_FACES[file] ?? file.match(/^lib\/([^/]+)\//)?.[1];
  const pastFace = (spec) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const match = target.match(/^lib\/([^/]+)\/(.+)$/);
    return match && match[1] !== own && match[2] !== 'index.ts' ? target : undefined;
  };
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      const target = argument && ts.isStringLiteral(argument) && pastFace(argument.text);
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (target) manual.push(`${file}:${line}: ${target}: dynamic import()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const node of source.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue;
    const specifier = node.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = pastFace(specifier.text);
    if (!target) continue;
    const face = `lib/${target.split('/')[1]}/index.ts`;
    const where = `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    if (!existsSync(path.join(root, face))) {
      manual.push(`${where}: ${target}: ${face} does not exist`);
      continue;
    }
    const { names, manual: reason } = namesOf(node);
    if (reason) {
      manual.push(`${where}: ${target}: ${reason}`);
      continue;
    }
    let ok = true;
    for (const name of names) {
      const wanted = exported(target, name);
      const present = exported(face, name);
      if (!wanted) {
        manual.push(`${where}: ${target} does not export ${name}`);
        ok = false;
      } else if (present && present !== wanted) {
        manual.push(`${where}: ${face} exports another ${name}`);
        ok = false;
      } else if (!present) {
        const inner = withDot(path.posix.relative(path.posix.dirname(face), target));
        if (!additions.has(face)) additions.set(face, new Map());
        const byInner = additions.get(face);
        if (!byInner.has(inner)) byInner.set(inner, new Map());
        byInner.get(inner).set(name, (wanted.flags & ts.SymbolFlags.Value) !== 0);
      }
    }
    if (!ok) continue;
    const spec = withDot(path.posix.relative(path.posix.dirname(file), face));
    if (!edits.has(file)) edits.set(file, []);
    edits.get(file).push({ start: specifier.getStart() + 1, end: specifier.getEnd() - 1, text: spec });
  }
}

for (const [file, list] of edits) {
  let text = readFileSync(path.join(root, file), 'utf8');
  for (const { start, end, text: spec } of list.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, start) + spec + text.slice(end);
  }
  console.log(`${file}: ${list.length} import(s) through the face`);
  if (!dryRun) writeFileSync(path.join(root, file), text);
}
for (const [face, byInner] of additions) {
  const lines = [];
  for (const [inner, names] of byInner) {
    const values = [...names].filter(([, v]) => v).map(([n]) => n);
    const types = [...names].filter(([, v]) => !v).map(([n]) => n);
    if (values.length) lines.push(`export { ${values.join(', ')} } from '${inner}';`);
    if (types.length) lines.push(`export type { ${types.join(', ')} } from '${inner}';`);
  }
  console.log(`${face}: +${lines.length} export line(s)`);
  if (!dryRun) {
    const text = readFileSync(path.join(root, face), 'utf8').replace(/\nexport \{\};\n?$/, '\n');
    writeFileSync(path.join(root, face), `${text.trimEnd()}\n${lines.join('\n')}\n`);
  }
}
if (manual.length) console.log(`\nFor a person to settle (${manual.length}):\n${manual.join('\n')}`);
