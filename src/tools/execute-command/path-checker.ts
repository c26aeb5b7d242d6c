/**
 * Where the command analysis meets the path policy: an argument becomes absolute paths (from every
 * folder the command may be in, globs matched now), each asked of the policy's checkPath once. Writes are
 * remembered so a script written and run by the same command is never trusted.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Access, PathDecision } from '../permissions/path-policy.js';
import {
  type CommandPolicyOptions,
  type Ctx,
  MAX_GLOB_MATCHES,
  quote,
  refuse,
  UNKNOWN,
} from './analysis-context.js';
import { DISKS, READ_DEVICES, WRITE_DEVICES } from './path-rules.js';
import { type Arg, looksLikeCode, looksLikePath, matchGlob, sliceArg } from './shell-words.js';

async function isSymlink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * A relative path from a current folder. The folder is a real path (from the policy), so leading
 * `..` and `.` can be applied to it directly; the rest is left for the policy to resolve, because a
 * `..` after a symlink in it would not mean the same.
 */
export function joinRelative(cwd: string, relative: string): string {
  let folder = cwd;
  let rest = relative;
  for (;;) {
    if (rest === '..' || rest.startsWith('../')) {
      folder = path.posix.dirname(folder);
      rest = rest.slice(2).replace(/^\/+/, '');
    } else if (rest === '.' || rest.startsWith('./')) {
      rest = rest.slice(1).replace(/^\/+/, '');
    } else {
      break;
    }
  }
  return rest === '' ? folder : folder === '/' ? `/${rest}` : `${folder}/${rest}`;
}

/** One per analysis: the policy is asked about each path and access once, however often it appears. */
export class PathChecker {
  private readonly decisions = new Map<string, Promise<PathDecision>>();
  /** Real paths this command writes (a script written and run by the same command is not trusted). */
  readonly written = new Set<string>();

  constructor(
    private readonly options: CommandPolicyOptions,
    /** Counts the work of each new policy question against the analysis' step limit. */
    private readonly tick: () => void,
  ) {}

  async decide(absolute: string, access: Access): Promise<PathDecision> {
    const key = `${access}\0${absolute}`;
    let decision = this.decisions.get(key);
    if (!decision) {
      this.tick();
      decision = this.options.checkPath(absolute, access, this.options.phase);
      this.decisions.set(key, decision);
    }
    return decision;
  }

  /** A container path (`/workspace/x`) as the host path the policy knows. */
  toHost(absolute: string): string {
    const inside = this.options.containerWorkspace;
    if (inside === undefined) return absolute;
    if (absolute === inside) return this.options.workspace;
    if (absolute.startsWith(`${inside}/`)) return this.options.workspace + absolute.slice(inside.length);
    return absolute;
  }

  /**
   * Checks an argument used as a path; returns the real paths it names. A path only known at run
   * time is refused for writing, and for reading when its known part builds a path (`$dir/x`).
   * `unlink`: the operation removes or renames the entry itself, so a symlink is not followed.
   */
  async checkArg(arg: Arg, access: Access, ctx: Ctx, what?: string, unlink = false): Promise<string[]> {
    const verb = what ?? (access === 'write' ? 'writes to' : 'reads');
    if (arg.dynamic) {
      if (!ctx.f.strict || (access === 'read' && (!looksLikePath(arg.known) || looksLikeCode(arg.known))))
        return [];
      return refuse(
        `it ${verb} ${quote(arg.raw)}, a path only known when the command runs, so it cannot be checked. Write the path out literally (relative to your workspace).`,
      );
    }
    const out: string[] = [];
    for (const cwd of arg.text.startsWith('/') ? [this.options.workspace] : ctx.cwds) {
      if (cwd === UNKNOWN) {
        if (ctx.f.strict) refuse(`it ${verb} ${quote(arg.raw)} from a folder that cannot be determined.`);
        continue;
      }
      let targets = [arg.text.startsWith('/') ? arg.text : joinRelative(cwd, arg.text)];
      if (arg.glob) {
        const matches = await matchGlob(arg, cwd, MAX_GLOB_MATCHES);
        if (matches === null) {
          if (access === 'write') {
            refuse(
              `${quote(arg.raw)} matches too many files to check. Use a narrower pattern, or delete a whole folder by name.`,
            );
          }
          // Too many to read one by one: the folder they are in decides.
          const prefix = arg.text.slice(0, arg.text.search(/[*?[]/));
          const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) || '/' : '.';
          targets = [folder.startsWith('/') ? folder : joinRelative(cwd, folder)];
        } else if (matches.length > 0) {
          targets = [...matches, ...targets];
        }
      }
      for (const target of targets) out.push(await this.checkAbsolute(target, access, arg.raw, verb, unlink));
    }
    return out;
  }

  private async checkAbsolute(
    target: string,
    access: Access,
    shown: string,
    verb: string,
    unlink: boolean,
  ): Promise<string> {
    const lexical = path.posix.normalize(target);
    if (unlink && !target.endsWith('/') && (await isSymlink(target))) {
      // Removing a link changes the folder it is in, not what it points to.
      const folder = path.posix.dirname(target);
      const decision = await this.decide(this.toHost(folder), 'write');
      if (!decision.allowed) refuse(`it ${verb} ${quote(shown)}. ${decision.reason}`);
      return `${decision.realPath}/${path.posix.basename(target)}`;
    }
    if ((access === 'read' ? READ_DEVICES : WRITE_DEVICES).test(lexical)) return lexical;
    if (access === 'write' && DISKS.test(lexical)) {
      refuse(`it writes to the disk device ${lexical}, which is never allowed here.`);
    }
    if (access === 'write' && /^\/etc(\/|$)/.test(lexical)) {
      refuse(
        `it writes to ${lexical}: system configuration under /etc is never changed from here. Write files in your workspace instead.`,
      );
    }
    const decision = await this.decide(this.toHost(target), access);
    if (!decision.allowed) refuse(`it ${verb} ${quote(shown)}. ${decision.reason}`);
    if (access === 'write') this.written.add(decision.realPath);
    return decision.realPath;
  }

  /** An argument of an unknown program: checked for reading when it looks like a path. */
  async readArg(arg: Arg, ctx: Ctx): Promise<void> {
    if (arg.dynamic) {
      if (ctx.f.strict && looksLikePath(arg.known) && !looksLikeCode(arg.known)) {
        refuse(
          `it uses ${quote(arg.raw)}, a path only known when the command runs, so it cannot be checked. Write the path out literally (relative to your workspace).`,
        );
      }
      return;
    }
    const text = arg.text;
    if (text.startsWith('-') && text.length > 1) {
      const eq = text.indexOf('=');
      if (eq > 0) {
        const value = sliceArg(arg, eq + 1);
        if (looksLikePath(value.text) && !looksLikeCode(value.text)) await this.checkArg(value, 'read', ctx);
      } else if (/^-[A-Za-z](\/|\.\.?\/|\.\.$)/.test(text)) {
        await this.checkArg(sliceArg(arg, 2), 'read', ctx);
      }
      return;
    }
    if ((!looksLikePath(text) && !arg.glob) || looksLikeCode(text)) return;
    await this.checkArg(arg, 'read', ctx);
  }

  async readArgs(args: readonly Arg[], ctx: Ctx): Promise<void> {
    for (const arg of args) await this.readArg(arg, ctx);
  }

  async writeArgs(args: readonly Arg[], ctx: Ctx, verb?: string, unlink = false): Promise<string[]> {
    const out: string[] = [];
    for (const arg of args) out.push(...(await this.checkArg(arg, 'write', ctx, verb, unlink)));
    return out;
  }
}
