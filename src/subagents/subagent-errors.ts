/**
 * A request a subagent tool refuses (a limit, a bad id, a file outside the workspace): its message is
 * the tool error the model reads, one line saying what was refused and what to do instead.
 */
export class SubagentRefusal extends Error {
  override readonly name = 'SubagentRefusal';
}
