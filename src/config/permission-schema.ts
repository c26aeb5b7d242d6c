import { z } from 'zod';

/**
 * `permissions:` — ordered allow / ask / deny rules over tool calls, team-wide at the top level and per
 * agent (`agents[].permissions`, asked first); and `write_mode` of a `write` context path. See
 * docs/permissions.md. Joined into the config schema in schema.ts.
 */

const pattern = z.string().min(1, { error: 'must not be empty' });
/** One pattern, or several (any of them matches). */
const patterns = z.union([pattern, z.array(pattern).min(1)]);

const ACTIONS = ['allow', 'ask', 'deny'] as const;

/**
 * One rule: exactly one of `allow`, `ask` or `deny`, naming the tools it covers (a tool-name pattern,
 * `*` for every tool), and conditions on the call's arguments that must all hold.
 */
export const PermissionRuleSchema = z
  .strictObject({
    allow: pattern.optional(),
    ask: pattern.optional(),
    deny: pattern.optional(),
    /** Path globs over path arguments; relative ones from the workspace and each context path. */
    path: patterns.optional(),
    /** Shell command globs (`git push*`), `*` matching anything. */
    command: patterns.optional(),
    /** Shell command regular expressions, matched from the start (MassGen's command filters). */
    command_regex: patterns.optional(),
    /** MCP server-name pattern. */
    server: pattern.optional(),
    /** MCP tool-name pattern (without the `mcp__<server>__` prefix). */
    mcp_tool: pattern.optional(),
    /** Network host patterns, e.g. `*.example.com`. */
    host: patterns.optional(),
    /** Argument name → pattern over its value. */
    args: z.record(z.string(), pattern).optional(),
    /** Told to the model with a denial, shown with a question. */
    reason: z.string().optional(),
  })
  .superRefine((rule, ctx) => {
    const given = ACTIONS.filter((action) => rule[action] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length > 1 ? [given[1] as string] : [],
        message:
          given.length === 0
            ? 'a permission rule needs one of allow:, ask: or deny: naming the tools it covers (e.g. deny: write_file, or "*" for every tool)'
            : `a permission rule has exactly one of allow:, ask: or deny: (this one has ${given.join(' and ')})`,
      });
    }
    const regexes = rule.command_regex === undefined ? [] : [rule.command_regex].flat();
    regexes.forEach((source) => {
      try {
        new RegExp(source);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          path: ['command_regex'],
          message: `"${source}" is not a valid regular expression (${(error as Error).message})`,
        });
      }
    });
  });

export const PermissionRulesSchema = z.array(PermissionRuleSchema);

/**
 * How the agents write a `write` context path: `direct` (the final presenter writes in place, the
 * default), `worktree` (each agent works on its own git worktree — a copy outside git — and the winner's
 * changes come back as a reviewed diff) or `isolated` (always a copy, git or not).
 */
export const WriteModeSchema = z.enum(['direct', 'worktree', 'isolated']);

export type PermissionRuleConfig = z.output<typeof PermissionRuleSchema>;
export type WriteMode = z.output<typeof WriteModeSchema>;
