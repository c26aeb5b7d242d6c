import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { PathSegment } from './config-path.js';
import type { ConfigDiagnostic, ConfigProblem } from './diagnostics.js';
import type { ProblemLocator } from './diagnostics.js';

/** A config file's text after YAML parsing: the data, any syntax problems, and a way back to positions. */
export interface ParsedSource {
  data: unknown;
  /** Syntax errors (and an empty-file problem); when non-empty, `data` should not be validated. */
  diagnostics: ConfigDiagnostic[];
  locate: ProblemLocator;
}

type Position = { line: number; column: number };

/** `Implicit keys need to be on a single line at line 1, column 1:\n\n…` → the first sentence only. */
function oneLine(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.replace(/ at line \d+, column \d+:?\s*$/, '');
}

/** Follows `path` through the YAML tree; stops at the deepest node that exists. */
function findNode(doc: Document, path: readonly PathSegment[], at: 'key' | 'value'): Node | undefined {
  let node: unknown = doc.contents;
  let found: Node | undefined = (doc.contents ?? undefined) as Node | undefined;
  for (const [index, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (pair === undefined) return found;
      if (index === path.length - 1 && at === 'key') return pair.key as Node;
      next = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
    }
    if (next === undefined || next === null) return found;
    node = next;
    found = next as Node;
  }
  return found;
}

/**
 * Parses YAML (JSON is valid YAML, so `.json` files come through here too and keep their positions).
 * Merge keys (`<<: *anchor`) are enabled so backends can share settings.
 */
export function parseYamlSource(text: string, kind: 'YAML' | 'JSON' = 'YAML'): ParsedSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, merge: true });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const locate: ProblemLocator = (problem: ConfigProblem) => {
    if (problem.path.length === 0) return undefined;
    const node = findNode(doc, problem.path, problem.at ?? 'value');
    return node?.range ? position(node.range[0]) : undefined;
  };

  const diagnostics: ConfigDiagnostic[] = doc.errors.map((error) => {
    const where = error.linePos?.[0];
    return {
      path: '',
      message: `${kind} syntax error: ${oneLine(error.message)}`,
      ...(where === undefined ? {} : { line: where.line, column: where.col }),
    };
  });
  if (diagnostics.length > 0) return { data: undefined, diagnostics, locate };
  if (doc.contents === null) {
    return {
      data: undefined,
      diagnostics: [
        { path: '', message: 'the config file is empty: it needs an "agents:" list or a single "agent:"' },
      ],
      locate,
    };
  }
  try {
    return { data: doc.toJS(), diagnostics: [], locate };
  } catch (error) {
    // toJS refuses alias bombs and similar; report it like a syntax error.
    const message = error instanceof Error ? oneLine(error.message) : String(error);
    return { data: undefined, diagnostics: [{ path: '', message: `${kind} error: ${message}` }], locate };
  }
}
