/**
 * A parser for the bash command language, good enough to find every command, word, redirection and
 * nested command (`$(…)`, backticks, `<(…)`, heredocs) in what a model asks `execute_command` to run.
 * It does not execute or expand anything; {@link analyseCommand} walks the tree it builds. Syntax it
 * does not understand is a {@link ShellSyntaxError}, and the caller refuses such a command.
 *
 * This file is the top of the grammar (lists, and-or chains, pipelines, simple commands); compound
 * commands, words and the cursor are the layers below it.
 */
import type { AndOr, Assignment, Command, List, Pipeline, Redirect, Word } from './shell-ast.js';
import { CompoundCommandParser } from './compound-command-parser.js';
import { META } from './shell-scanner.js';
import type { Stop } from './word-parser.js';

export type { AndOr, Assignment, Command, List, Pipeline, Redirect, Word, WordPart } from './shell-ast.js';
export { ShellSyntaxError } from './shell-ast.js';

const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_]*)(\[[^\]$`]*\])?(\+?)=/y;

class Parser extends CompoundCommandParser {
  override parseProgram(): List {
    const list = this.parseList({});
    this.skipLinebreaks();
    if (this.pos < this.src.length) throw this.error(`unexpected "${this.src[this.pos]}"`);
    if (this.pending.length > 0) this.readHeredocs();
    return list;
  }

  protected override parseList(stop: Stop): List {
    const items: List['items'] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.atEnd()) break;
      const op = this.peekOperator();
      if (op === ')') {
        if (stop.paren) break;
        throw this.error('unexpected ")"');
      }
      if (op === ';;' || op === ';&' || op === ';;&') {
        if (stop.caseArm) break;
        throw this.error(`unexpected "${op}"`);
      }
      if (op !== null && op !== '(') throw this.error(`unexpected "${op}"`);
      const reserved = this.peekReserved();
      if (reserved !== null && stop.words?.includes(reserved)) break;
      const andOr = this.parseAndOr();
      const sep = this.peekOperator();
      let background = false;
      if (sep === '&') {
        this.pos++;
        background = true;
      } else if (sep === ';') {
        this.pos++;
      } else if (
        sep !== '\n' &&
        sep !== ')' &&
        sep !== ';;' &&
        sep !== ';&' &&
        sep !== ';;&' &&
        !this.atEnd()
      ) {
        const word = this.peekReserved();
        if (word === null || !stop.words?.includes(word)) {
          throw this.error(`unexpected "${this.src.slice(this.pos, this.pos + 10)}"`);
        }
      }
      items.push({ andOr, background });
    }
    return { items };
  }

  private parseAndOr(): AndOr {
    const first = this.parsePipeline();
    const rest: AndOr['rest'] = [];
    for (;;) {
      const op = this.peekOperator();
      if (op !== '&&' && op !== '||') break;
      this.pos += 2;
      this.skipLinebreaks();
      rest.push({ op, pipeline: this.parsePipeline() });
    }
    return { first, rest };
  }

  private parsePipeline(): Pipeline {
    let negated = false;
    for (;;) {
      const word = this.peekReserved();
      if (word === '!') {
        this.pos++;
        negated = !negated;
      } else if (word === 'time') {
        this.pos += 4;
        this.skipBlanks();
        if (this.src.startsWith('-p', this.pos) && META.has(this.peek(2) ?? ' ')) this.pos += 2;
      } else {
        break;
      }
    }
    const commands = [this.parseCommand()];
    for (;;) {
      const op = this.peekOperator();
      if (op !== '|' && op !== '|&') break;
      this.pos += op.length;
      this.skipLinebreaks();
      commands.push(this.parseCommand());
    }
    return { negated, commands };
  }

  protected override parseCommand(): Command {
    return this.nested(() => this.parseCompound() ?? this.parseSimple());
  }

  private parseSimple(): Command {
    const assigns: Assignment[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipGap();
      if (this.atEnd()) break;
      const redirect = this.tryRedirect();
      if (redirect !== null) {
        redirects.push(redirect);
        continue;
      }
      const c = this.peek()!;
      if (c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')') break;
      if (words.length === 0) {
        const assignment = this.tryAssignment();
        if (assignment !== null) {
          assigns.push(assignment);
          continue;
        }
      }
      const word = this.readWord();
      if (word === null) break;
      words.push(word);
      if (words.length === 1 && assigns.length === 0 && redirects.length === 0) {
        const save = this.pos;
        this.skipBlanks();
        if (this.peek() === '(') {
          this.pos++;
          this.skipBlanks();
          if (this.peek() === ')') {
            this.pos++;
            this.skipLinebreaks();
            return { type: 'function', name: word.raw, body: this.parseCommand() };
          }
        }
        this.pos = save;
      }
    }
    if (assigns.length === 0 && words.length === 0 && redirects.length === 0) {
      throw this.error('expected a command');
    }
    return { type: 'simple', assigns, words, redirects };
  }

  private tryAssignment(): Assignment | null {
    const match = this.match(ASSIGNMENT);
    if (!match) return null;
    const start = this.pos;
    this.pos += match[0].length;
    const name = match[1]!;
    if (this.peek() === '(') {
      this.pos++;
      const array: Word[] = [];
      for (;;) {
        this.skipLinebreaks();
        if (this.peek() === ')') {
          this.pos++;
          break;
        }
        if (this.atEnd()) throw this.error('unterminated array');
        const word = this.readWord();
        if (word === null) throw this.error('unexpected character in an array');
        array.push(word);
      }
      return { name, append: match[3] === '+', value: null, array, raw: this.src.slice(start, this.pos) };
    }
    const value = this.readWord() ?? { parts: [{ kind: 'text', text: '', quoted: true }], raw: '' };
    return { name, append: match[3] === '+', value, array: null, raw: this.src.slice(start, this.pos) };
  }

  protected override spawn(source: string, nesting: number): Parser {
    return new Parser(source, nesting);
  }
}

/** Parses a whole command line (or script). @throws ShellSyntaxError */
export function parseShell(source: string): List {
  return new Parser(source, 0).parseProgram();
}
