/**
 * The compound commands of the shell grammar: `{ …; }`, `( … )`, `if`, `while`/`until`, `for`/`select`,
 * `case`, `[[ … ]]`, `(( … ))` and function definitions. Their bodies are lists and commands again,
 * parsed by the grammar layer above.
 */
import type { Command, List, Word } from './shell-ast.js';
import { META, NAME } from './shell-scanner.js';
import { WordParser } from './word-parser.js';

const TEST_OPERATOR = /&&|\|\||[()!<>|&;]/y;

/** Compound commands; their redirections follow the closing keyword. */
export abstract class CompoundCommandParser extends WordParser {
  /** One command of any kind (function bodies are commands). */
  protected abstract parseCommand(): Command;

  /** The compound command at the cursor, or null when a simple command starts here. */
  protected parseCompound(): Command | null {
    this.skipGap();
    const word = this.peekReserved();
    switch (word) {
      case '{': {
        this.pos++;
        const body = this.parseList({ words: ['}'] });
        this.consumeReserved('}');
        return { type: 'group', body, redirects: this.parseRedirects() };
      }
      case 'if': {
        this.pos += 2;
        const branches: { cond: List; body: List }[] = [];
        let otherwise: List | null = null;
        for (;;) {
          const cond = this.parseList({ words: ['then'] });
          this.consumeReserved('then');
          const body = this.parseList({ words: ['elif', 'else', 'fi'] });
          branches.push({ cond, body });
          const next = this.peekReserved();
          if (next === 'elif') {
            this.pos += 4;
            continue;
          }
          if (next === 'else') {
            this.pos += 4;
            otherwise = this.parseList({ words: ['fi'] });
          }
          this.consumeReserved('fi');
          break;
        }
        return { type: 'if', branches, otherwise, redirects: this.parseRedirects() };
      }
      case 'while':
      case 'until': {
        this.pos += word.length;
        const cond = this.parseList({ words: ['do'] });
        this.consumeReserved('do');
        const body = this.parseList({ words: ['done'] });
        this.consumeReserved('done');
        return { type: 'while', until: word === 'until', cond, body, redirects: this.parseRedirects() };
      }
      case 'for':
      case 'select':
        return this.parseFor(word);
      case 'case':
        return this.parseCase();
      case 'function': {
        this.pos += 8;
        this.skipBlanks();
        const name = this.readBareName();
        this.skipBlanks();
        if (this.peek() === '(') {
          this.pos++;
          this.expect(')');
        }
        this.skipLinebreaks();
        return { type: 'function', name, body: this.parseCommand() };
      }
      case '[[':
        return this.parseTest();
      case null:
        break;
      default:
        throw this.error(`unexpected "${word}"`);
    }
    if (this.src.startsWith('((', this.pos)) {
      const start = this.pos;
      this.pos += 2;
      const parts = this.tryArithmetic();
      if (parts !== null) return { type: 'arith', parts, redirects: this.parseRedirects() };
      this.pos = start;
    }
    if (this.peek() === '(') {
      this.pos++;
      const body = this.parseList({ paren: true });
      this.skipLinebreaks();
      this.expect(')');
      return { type: 'subshell', body, redirects: this.parseRedirects() };
    }
    return null;
  }

  private readBareName(): string {
    const start = this.pos;
    while (!this.atEnd() && !META.has(this.peek()!) && !'"\'`$\\'.includes(this.peek()!)) this.pos++;
    if (this.pos === start) throw this.error('expected a name');
    return this.src.slice(start, this.pos);
  }

  private parseFor(keyword: string): Command {
    this.pos += keyword.length;
    this.skipBlanks();
    if (this.src.startsWith('((', this.pos)) {
      this.pos += 2;
      const arith = this.tryArithmetic();
      if (arith === null) throw this.error('unterminated "for ((…))"');
      this.skipGap();
      if (this.peek() === ';') this.pos++;
      this.skipLinebreaks();
      const body = this.parseLoopBody();
      return { type: 'for', variable: null, items: null, arith, body, redirects: this.parseRedirects() };
    }
    const match = this.match(NAME);
    if (!match) throw this.error(`expected a variable name after "${keyword}"`);
    this.pos += match[0].length;
    this.skipLinebreaks();
    let items: Word[] | null = null;
    if (this.peekReserved() === 'in') {
      this.pos += 2;
      items = [];
      for (;;) {
        const op = this.peekOperator();
        if (op === ';') {
          this.pos++;
          break;
        }
        if (op === '\n') break;
        if (op !== null || this.atEnd()) throw this.error(`unexpected end of "${keyword} … in" list`);
        const word = this.readWord();
        if (word === null) throw this.error('expected a word');
        items.push(word);
      }
    } else if (this.peekOperator() === ';') {
      this.pos++;
    }
    this.skipLinebreaks();
    const body = this.parseLoopBody();
    return { type: 'for', variable: match[0], items, arith: null, body, redirects: this.parseRedirects() };
  }

  private parseLoopBody(): List {
    if (this.peekReserved() === '{') {
      this.pos++;
      const body = this.parseList({ words: ['}'] });
      this.consumeReserved('}');
      return body;
    }
    this.consumeReserved('do');
    const body = this.parseList({ words: ['done'] });
    this.consumeReserved('done');
    return body;
  }

  private parseCase(): Command {
    this.pos += 4;
    this.skipBlanks();
    const subject = this.readWord();
    if (subject === null) throw this.error('expected a word after "case"');
    this.skipLinebreaks();
    this.consumeReserved('in');
    const arms: { patterns: Word[]; body: List }[] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.peekReserved() === 'esac') {
        this.pos += 4;
        break;
      }
      if (this.atEnd()) throw this.error('missing "esac"');
      this.skipGap();
      if (this.peek() === '(') this.pos++;
      const patterns: Word[] = [];
      for (;;) {
        this.skipGap();
        const pattern = this.readWord();
        if (pattern === null) throw this.error('expected a case pattern');
        patterns.push(pattern);
        this.skipGap();
        if (this.peek() === '|') {
          this.pos++;
          continue;
        }
        this.expect(')');
        break;
      }
      const body = this.parseList({ words: ['esac'], caseArm: true });
      const op = this.peekOperator();
      if (op === ';;' || op === ';&' || op === ';;&') this.pos += op.length;
      arms.push({ patterns, body });
    }
    return { type: 'case', subject, arms, redirects: this.parseRedirects() };
  }

  private parseTest(): Command {
    this.pos += 2;
    const words: Word[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.peekReserved() === ']]') {
        this.pos += 2;
        break;
      }
      if (this.atEnd() || this.peek() === '\n') throw this.error('missing "]]"');
      const operator = this.match(TEST_OPERATOR);
      if (operator && !(this.peek(1) === '(' && (this.peek() === '<' || this.peek() === '>'))) {
        words.push({ parts: [{ kind: 'text', text: operator[0], quoted: true }], raw: operator[0] });
        this.pos += operator[0].length;
        continue;
      }
      const word = this.readWord();
      if (word === null) throw this.error('unexpected character in "[[ … ]]"');
      words.push(word);
    }
    return { type: 'test', words, redirects: this.parseRedirects() };
  }
}
