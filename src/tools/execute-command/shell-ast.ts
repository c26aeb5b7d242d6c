/**
 * The tree the shell parser builds: lists of and-or chains of pipelines of commands, and words made
 * of parts still to be expanded. The command analysis walks it; nothing here is executed.
 */

/** One piece of a word before expansion. `quoted`: inside quotes (no globbing, splitting or braces). */
export type WordPart =
  | { kind: 'text'; text: string; quoted: boolean }
  /** `$name`, `${name}`; `op` is the rest of `${name…}` (`:-default`, `#pattern`, `[i]`…), `nested` its own parts. */
  | { kind: 'param'; name: string; quoted: boolean; op: string | null; nested: WordPart[] }
  | { kind: 'command'; body: List; quoted: boolean }
  | { kind: 'arith'; nested: WordPart[]; quoted: boolean }
  | { kind: 'process'; body: List; direction: '<' | '>' };

export interface Word {
  parts: WordPart[];
  /** The word as written, for messages. */
  raw: string;
}

export interface Redirect {
  /** `>`, `>>`, `>|`, `<`, `<>`, `&>`, `&>>`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd: string | null;
  /** The file (or fd, or here-string, or heredoc delimiter). */
  target: Word;
  /** For `<<`/`<<-`: the body; unquoted delimiters leave it subject to expansion. */
  heredoc: { parts: WordPart[]; text: string; quoted: boolean } | null;
}

export interface Assignment {
  name: string;
  /** `name+=value`. */
  append: boolean;
  /** Value of `name=value` (null for an array `name=(…)`). */
  value: Word | null;
  array: Word[] | null;
  raw: string;
}

export type Command =
  | { type: 'simple'; assigns: Assignment[]; words: Word[]; redirects: Redirect[] }
  | { type: 'subshell'; body: List; redirects: Redirect[] }
  | { type: 'group'; body: List; redirects: Redirect[] }
  | { type: 'if'; branches: { cond: List; body: List }[]; otherwise: List | null; redirects: Redirect[] }
  | { type: 'while'; until: boolean; cond: List; body: List; redirects: Redirect[] }
  | {
      type: 'for';
      variable: string | null;
      items: Word[] | null;
      arith: WordPart[] | null;
      body: List;
      redirects: Redirect[];
    }
  | { type: 'case'; subject: Word; arms: { patterns: Word[]; body: List }[]; redirects: Redirect[] }
  | { type: 'function'; name: string; body: Command }
  | { type: 'arith'; parts: WordPart[]; redirects: Redirect[] }
  | { type: 'test'; words: Word[]; redirects: Redirect[] };

export interface Pipeline {
  negated: boolean;
  commands: Command[];
}

export interface AndOr {
  first: Pipeline;
  rest: { op: '&&' | '||'; pipeline: Pipeline }[];
}

export interface List {
  items: { andOr: AndOr; background: boolean }[];
}

export class ShellSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}
