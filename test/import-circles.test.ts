/**
 * No two source modules import each other, directly or round a circle (types included): a shared type
 * lives below both of its users (docs/architecture.md, "Layers"). The imports are read with the
 * TypeScript compiler's parser: every `import` and `export … from`, `import type` included. An
 * `import()` is not an edge: it is how a module loads another later (a capability's descriptor its
 * module, which may use the descriptor's predicates), after both have been evaluated.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

const isSource = (name: string) => /\.tsx?$/.test(name) && !/\.test\.tsx?$|\.test-support\.ts$/.test(name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return isSource(entry.name) ? [file] : [];
  });
}

/** The module a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx`), or null. */
function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '');
  const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((f) => existsSync(f));
  return found ?? null;
}

/** Each source file and the source files it imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const targets = source.statements.flatMap((statement) =>
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? (resolve(file, statement.moduleSpecifier.text) ?? [])
        : [],
    );
    graph.set(
      file,
      [...new Set(targets)].filter((target) => isSource(path.basename(target))),
    );
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan), each sorted. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the import graph of src/', () => {
  it('finds a circle where there is one (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('has no circles', () => {
    const graph = importGraph(sourceFiles(src));
    expect(graph.size).toBeGreaterThan(300);
    const named = circles(graph).map((component) => component.map((f) => path.relative(src, f)).join(' → '));
    expect(named, 'modules that import each other: move the shared part down into a file of its own').toEqual(
      [],
    );
  });
});
