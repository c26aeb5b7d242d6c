/**
 * The character-level layer of the shell parser: the cursor, blanks and comments, control operators
 * and reserved words. Bash tokenises in context (a word may hold a whole `$(…)`), so there is no
 * separate token stream; the parser layers above read through this cursor.
 */
import { ShellSyntaxError } from './shell-ast.js';

const RESERVED = new Set([
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'select',
  'in',
  'function',
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'time',
]);

/** Characters that end an unquoted word. */
export const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
export const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
/** Nesting of `$(…)`, backticks, `eval`… beyond which a command is not worth analysing. */
const MAX_NESTING = 64;

/** The cursor over the source text; the parser layers extend it. */
export abstract class ShellScanner {
  protected pos = 0;
  /** Nesting inside this parser (subshells, groups, substitutions…). */
  protected depth = 0;

  constructor(
    protected readonly src: string,
    protected readonly nesting: number,
  ) {
    if (nesting > MAX_NESTING) throw new ShellSyntaxError('commands are nested too deeply');
  }

  protected error(message: string): ShellSyntaxError {
    return new ShellSyntaxError(`${message} at character ${this.pos + 1}`);
  }

  protected peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  /** Matches a sticky regular expression at the cursor. */
  protected match(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.pos;
    return pattern.exec(this.src);
  }

  protected atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  protected skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '\\' && this.peek(1) === '\n') this.pos += 2;
      else return;
    }
  }

  /** Blanks and a comment (not the newline ending it). */
  protected skipGap(): void {
    this.skipBlanks();
    if (this.peek() === '#') {
      while (!this.atEnd() && this.peek() !== '\n') this.pos++;
    }
  }

  /** The control operator at the cursor (after blanks), if any. Redirections are not operators. */
  protected peekOperator(): string | null {
    this.skipGap();
    const rest = this.src.slice(this.pos, this.pos + 3);
    if (rest.startsWith('&>')) return null;
    for (const op of [';;&', ';;', ';&', ';', '&&', '&', '||', '|&', '|', '(', ')', '\n']) {
      if (rest.startsWith(op)) return op;
    }
    return null;
  }

  /** The reserved word at the cursor (after blanks), if the next token is one. */
  protected peekReserved(): string | null {
    this.skipGap();
    let end = this.pos;
    while (end < this.src.length) {
      const c = this.src[end]!;
      if (META.has(c) || c === '\r' || c === '"' || c === "'" || c === '\\' || c === '$' || c === '`') break;
      end++;
    }
    if (end === this.pos) return null;
    const next = this.src[end];
    if (next === '"' || next === "'" || next === '\\' || next === '$' || next === '`') return null;
    const token = this.src.slice(this.pos, end);
    return RESERVED.has(token) ? token : null;
  }

  protected consumeReserved(word: string): void {
    if (this.peekReserved() !== word) throw this.error(`expected "${word}"`);
    this.pos += word.length;
  }

  protected expect(text: string): void {
    this.skipGap();
    if (!this.src.startsWith(text, this.pos)) throw this.error(`expected "${text}"`);
    this.pos += text.length;
  }

  protected nested<T>(parse: () => T): T {
    if (this.nesting + this.depth + 1 > MAX_NESTING)
      throw new ShellSyntaxError('commands are nested too deeply');
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }
}
