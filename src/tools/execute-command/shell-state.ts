/**
 * Variable tracking: what the shell running each part of the command knows about its variables,
 * positional parameters and current folder, and how assignments change that. Unknown values stay
 * unknown (null) so paths built from them are refused rather than guessed.
 */
import {
  type CommandPolicyOptions,
  type Ctx,
  refuse,
  SAFE,
  type Shell,
  UNKNOWN,
  type Value,
} from './analysis-context.js';
import { NUMERIC_VARS, PROTECTED_VARS } from './variable-rules.js';

/** The shell the command starts in: its environment, HOME and the default IFS. */
export function initialShell(options: CommandPolicyOptions): Shell {
  const vars = new Map<string, Value>();
  for (const [name, value] of Object.entries(options.env ?? {})) vars.set(name, value);
  vars.set('HOME', options.workspace);
  vars.set('IFS', ' \t\n');
  return { vars, positional: null, functions: new Map(), ifsChanged: false, namerefs: false };
}

/** The shell of a new bash process started by this one: only the environment is known. */
export function childShell(options: CommandPolicyOptions, parent: Shell): Shell {
  const child = initialShell(options);
  for (const name of parent.vars.keys()) if (!child.vars.has(name)) child.vars.set(name, null);
  child.functions = new Map(parent.functions);
  return child;
}

/** A copy for a subshell: changes there do not reach this shell. */
export function forkShell(sh: Shell): Shell {
  return {
    vars: new Map(sh.vars),
    positional: sh.positional === null ? null : [...sh.positional],
    functions: new Map(sh.functions),
    ifsChanged: sh.ifsChanged,
    namerefs: sh.namerefs,
  };
}

/** The current folder when it is certain. */
export function pwd(ctx: Ctx): string | null {
  return ctx.cwds.length === 1 && ctx.cwds[0] !== UNKNOWN ? ctx.cwds[0]! : null;
}

/** What a variable (or special parameter) holds, as far as the analysis knows. */
export function lookup(name: string, ctx: Ctx): Value {
  if (/^[1-9]$/.test(name)) {
    const positional = ctx.sh.positional;
    if (positional === null) return null;
    return positional[Number(name) - 1] ?? '';
  }
  if (name === '0' || name === '@' || name === '*' || name === '_') return null;
  if ('#?$!-'.includes(name)) return SAFE;
  if (ctx.sh.namerefs) return null;
  if (ctx.sh.vars.has(name)) return ctx.sh.vars.get(name)!;
  if (name === 'PWD') return pwd(ctx);
  if (NUMERIC_VARS.has(name)) return SAFE;
  return null;
}

/** A variable changed by a builtin (read, for, declare…): protected ones are refused. */
export function assign(ctx: Ctx, name: string, value: Value): void {
  if (PROTECTED_VARS.has(name)) {
    refuse(
      `it changes ${name}, which changes where the shell finds files or what it runs at startup. Leave ${name} as it is.`,
    );
  }
  setVar(ctx, name, value);
}

/** Records a value; where the assignment may not run, the variable becomes unknown unless it already held that value. */
export function setVar(ctx: Ctx, name: string, value: Value): void {
  const vars = ctx.sh.vars;
  if (ctx.f.definite) vars.set(name, value);
  else if (!(vars.has(name) && vars.get(name) === value && value !== null)) vars.set(name, null);
}
