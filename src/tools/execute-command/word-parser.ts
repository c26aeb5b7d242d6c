/**
 * The word layer of the shell parser: quoting, `$…` expansions, `$(…)`, backticks, `<(…)`,
 * arithmetic, redirections and heredoc bodies. Substitutions hold whole command lists, so this layer
 * calls back into the grammar through {@link WordParser.parseList}.
 */
import type { List, Redirect, Word, WordPart } from './shell-ast.js';
import { readAnsiC } from './ansi-c-quote.js';
import { META, NAME, ShellScanner } from './shell-scanner.js';

const REDIRECT = /(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|<>|<&|>>|>&|>\||&>>|&>|<|>)/y;

/** Where a command list ends besides the end of the text. */
export interface Stop {
  words?: readonly string[];
  paren?: boolean;
  caseArm?: boolean;
}

/** Escapes honoured by a backslash inside double quotes (heredoc bodies: the same minus `"`). */
const DQ_ESCAPES = '$`"\\\n';
const HEREDOC_ESCAPES = '$`\\\n';

/** Words and redirections; heredoc bodies are read at the next newline, as bash does. */
export abstract class WordParser extends ShellScanner {
  protected pending: Redirect[] = [];
  private pendingStrip = new Map<Redirect, { delimiter: string; strip: boolean }>();

  /** The whole text as a command list (the grammar). */
  abstract parseProgram(): List;

  protected abstract parseList(stop: Stop): List;

  /** A parser for nested text (heredoc bodies, `${…}` operands, backticks), nested one level deeper. */
  protected abstract spawn(source: string, nesting: number): WordParser;

  /** Text with `$…`, backticks and backslash escapes, up to the end (double-quote-like content). */
  parseQuotedContent(escapes: string): WordPart[] {
    return this.readQuoted(null, escapes);
  }

  private consumeNewline(): boolean {
    if (this.peek() !== '\n') return false;
    this.pos++;
    if (this.pending.length > 0) this.readHeredocs();
    return true;
  }

  protected skipLinebreaks(): void {
    for (;;) {
      this.skipGap();
      if (!this.consumeNewline()) return;
    }
  }

  protected parseRedirects(): Redirect[] {
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipGap();
      const redirect = this.tryRedirect();
      if (redirect === null) return redirects;
      redirects.push(redirect);
    }
  }

  protected tryRedirect(): Redirect | null {
    const match = this.match(REDIRECT);
    if (!match) return null;
    const op = match[2]!;
    if ((op === '<' || op === '>') && this.src[this.pos + match[0].length] === '(') return null;
    this.pos += match[0].length;
    this.skipBlanks();
    const target = this.readWord();
    if (target === null) throw this.error(`expected a word after "${op}"`);
    const redirect: Redirect = { op, fd: match[1] ?? null, target, heredoc: null };
    if (op === '<<' || op === '<<-') {
      const quoted = target.parts.some((p) => p.kind === 'text' && p.quoted);
      const delimiter = target.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      redirect.heredoc = { parts: [], text: '', quoted };
      this.pending.push(redirect);
      this.pendingStrip.set(redirect, { delimiter, strip: op === '<<-' });
    }
    return redirect;
  }

  protected readHeredocs(): void {
    const pending = this.pending;
    this.pending = [];
    for (const redirect of pending) {
      const { delimiter, strip } = this.pendingStrip.get(redirect)!;
      const lines: string[] = [];
      while (!this.atEnd()) {
        const newline = this.src.indexOf('\n', this.pos);
        const end = newline === -1 ? this.src.length : newline;
        let line = this.src.slice(this.pos, end);
        this.pos = newline === -1 ? end : end + 1;
        if (strip) line = line.replace(/^\t+/, '');
        if (line === delimiter) break;
        lines.push(line);
      }
      const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
      const heredoc = redirect.heredoc!;
      heredoc.text = text;
      heredoc.parts = heredoc.quoted
        ? [{ kind: 'text', text, quoted: true }]
        : this.spawn(text, this.nesting + this.depth + 1).parseQuotedContent(HEREDOC_ESCAPES);
    }
  }

  /** One word, or null when the cursor is at an operator, a blank or the end. */
  protected readWord(): Word | null {
    const start = this.pos;
    const parts: WordPart[] = [];
    let text = '';
    const flush = (): void => {
      if (text !== '') parts.push({ kind: 'text', text, quoted: false });
      text = '';
    };
    while (!this.atEnd()) {
      const c = this.peek()!;
      if (c === '<' || c === '>') {
        if (this.peek(1) !== '(') break;
        flush();
        this.pos += 2;
        const body = this.nested(() => this.parseList({ paren: true }));
        this.skipLinebreaks();
        this.expect(')');
        parts.push({ kind: 'process', body, direction: c });
        continue;
      }
      if (META.has(c) || c === '\r') break;
      if (c === '\\') {
        const next = this.peek(1);
        if (next === '\n') {
          this.pos += 2;
          continue;
        }
        flush();
        parts.push({ kind: 'text', text: next ?? '\\', quoted: true });
        this.pos += next === undefined ? 1 : 2;
        continue;
      }
      if (c === "'") {
        flush();
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) throw this.error('unterminated single quote');
        parts.push({ kind: 'text', text: this.src.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        flush();
        this.pos++;
        parts.push(...this.readQuoted('"', DQ_ESCAPES));
        continue;
      }
      if (c === '$') {
        flush();
        parts.push(...this.readDollar(false));
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.readBacktick(false));
        continue;
      }
      text += c;
      this.pos++;
    }
    flush();
    if (this.pos === start) return null;
    return { parts, raw: this.src.slice(start, this.pos) };
  }

  /** Double-quoted text up to `terminator` (consumed), or to the end when `terminator` is null. */
  private readQuoted(terminator: '"' | null, escapes: string): WordPart[] {
    const parts: WordPart[] = [];
    let text = '';
    const flush = (): void => {
      if (text !== '') parts.push({ kind: 'text', text, quoted: true });
      text = '';
    };
    for (;;) {
      if (this.atEnd()) {
        if (terminator !== null) throw this.error('unterminated double quote');
        break;
      }
      const c = this.peek()!;
      if (c === terminator) {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const next = this.peek(1);
        if (next !== undefined && escapes.includes(next)) {
          if (next !== '\n') text += next;
          this.pos += 2;
        } else {
          text += '\\';
          this.pos++;
        }
        continue;
      }
      if (c === '$') {
        flush();
        parts.push(...this.readDollar(true));
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.readBacktick(true));
        continue;
      }
      text += c;
      this.pos++;
    }
    flush();
    if (parts.length === 0) parts.push({ kind: 'text', text: '', quoted: true });
    return parts;
  }

  private readDollar(quoted: boolean): WordPart[] {
    const next = this.peek(1);
    if (!quoted && next === "'") {
      const { text, end } = readAnsiC(this.src, this.pos + 2);
      this.pos = end;
      return [{ kind: 'text', text, quoted: true }];
    }
    if (!quoted && next === '"') {
      this.pos += 2;
      return this.readQuoted('"', DQ_ESCAPES);
    }
    if (next === '(') {
      if (this.peek(2) === '(') {
        const start = this.pos;
        this.pos += 3;
        const nested = this.tryArithmetic();
        if (nested !== null) return [{ kind: 'arith', nested, quoted }];
        this.pos = start;
      }
      this.pos += 2;
      const body = this.nested(() => this.parseList({ paren: true }));
      this.skipLinebreaks();
      this.expect(')');
      return [{ kind: 'command', body, quoted }];
    }
    if (next === '{') {
      this.pos += 2;
      return [this.readBraced(quoted)];
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      this.pos++;
      const name = this.match(NAME)![0];
      this.pos += name.length;
      return [{ kind: 'param', name, quoted, op: null, nested: [] }];
    }
    if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.pos += 2;
      return [{ kind: 'param', name: next, quoted, op: null, nested: [] }];
    }
    this.pos++;
    return [{ kind: 'text', text: '$', quoted }];
  }

  /** `${…}` after the `${`. */
  private readBraced(quoted: boolean): WordPart {
    const start = this.pos;
    let depth = 1;
    while (depth > 0) {
      if (this.atEnd()) throw this.error('unterminated "${"');
      const c = this.peek()!;
      if (c === '\\') {
        this.pos += 2;
        continue;
      }
      if (c === "'" && !quoted) {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) throw this.error('unterminated single quote');
        this.pos = end + 1;
        continue;
      }
      if (c === '{') depth++;
      if (c === '}') depth--;
      this.pos++;
    }
    const content = this.src.slice(start, this.pos - 1);
    const match = /^(#(?=[A-Za-z_0-9@*#?$!-]+$)|!)?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(content);
    if (!match) throw this.error(`bad substitution "\${${content}}"`);
    const prefix = match[1] ?? '';
    const rest = content.slice(match[0].length);
    const op = prefix === '' && rest === '' ? null : `${prefix}|${rest}`;
    const nested =
      rest === '' ? [] : this.spawn(rest, this.nesting + this.depth + 1).parseQuotedContent(DQ_ESCAPES);
    return { kind: 'param', name: match[2]!, quoted, op, nested };
  }

  private readBacktick(quoted: boolean): WordPart {
    let inner = '';
    let i = this.pos + 1;
    for (;;) {
      const c = this.src[i];
      if (c === undefined) throw this.error('unterminated backquote');
      if (c === '`') break;
      if (c === '\\') {
        const next = this.src[i + 1];
        if (next === '$' || next === '`' || next === '\\' || (quoted && next === '"')) {
          inner += next;
          i += 2;
          continue;
        }
      }
      inner += c;
      i++;
    }
    this.pos = i + 1;
    const body = this.spawn(inner, this.nesting + this.depth + 1).parseProgram();
    return { kind: 'command', body, quoted };
  }

  /**
   * After `((` or `$((`: the expression up to the matching `))`, or null when the parentheses close
   * differently (then it was a subshell or command substitution starting with a subshell).
   */
  protected tryArithmetic(): WordPart[] | null {
    const start = this.pos;
    let depth = 0;
    let i = this.pos;
    for (;;) {
      const c = this.src[i];
      if (c === undefined) return null;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === "'" || c === '"') {
        const end = this.src.indexOf(c, i + 1);
        if (end === -1) return null;
        i = end + 1;
        continue;
      }
      if (c === '(') depth++;
      if (c === ')') {
        if (depth > 0) depth--;
        else if (this.src[i + 1] === ')') break;
        else return null;
      }
      i++;
    }
    const content = this.src.slice(start, i);
    this.pos = i + 2;
    return this.spawn(content, this.nesting + this.depth + 1).parseQuotedContent(DQ_ESCAPES);
  }
}
