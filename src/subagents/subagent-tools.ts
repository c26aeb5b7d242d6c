import { z } from 'zod';
import type { JsonSchema, ToolDefinition } from '../types/messages.js';
import type { ToolContext, ToolResult } from '../types/tool.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import {
  IdArgumentsSchema,
  MessageArgumentsSchema,
  ResultArgumentsSchema,
  SpawnArgumentsSchema,
} from './spawn-arguments.js';
import { SubagentRefusal } from './subagent-errors.js';
import type { SubagentManager } from './subagent-manager.js';
import type { SubagentType } from './subagent-types.js';

/** The tool names, in the order they are offered. */
export const SUBAGENT_TOOL_NAMES = [
  'spawn_subagents',
  'list_subagents',
  'subagent_result',
  'send_message_to_subagent',
  'cancel_subagent',
] as const;

function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, {
    target: 'draft-07',
    io: 'input',
  }) as JsonSchema;
  return parameters;
}

function definitions(types: ReadonlyMap<string, SubagentType>): ToolDefinition[] {
  const typeList = [...types.values()].map((t) => `${t.name} (${t.description})`).join('; ');
  return [
    {
      name: 'spawn_subagents',
      description:
        'Start subagents: each task runs as a whole team of its own, in its own workspace, with its own time limit. ' +
        'background: false waits for all of them; true returns their ids at once (collect with subagent_result). ' +
        `Subagents keep running if your turn restarts. Typed subagents: ${typeList || 'none'}.`,
      parameters: jsonSchema(SpawnArgumentsSchema),
    },
    {
      name: 'list_subagents',
      description: 'Your subagents in this run: id, state, task and cost.',
      parameters: jsonSchema(z.strictObject({})),
      annotations: { readOnly: true },
    },
    {
      name: 'subagent_result',
      description: "A subagent's state and answer; wait_seconds waits for a running one to finish.",
      parameters: jsonSchema(ResultArgumentsSchema),
      annotations: { readOnly: true },
    },
    {
      name: 'send_message_to_subagent',
      description: 'Send a running subagent a message (steering): its agents read it at their next step.',
      parameters: jsonSchema(MessageArgumentsSchema),
    },
    {
      name: 'cancel_subagent',
      description: 'Stop a running subagent.',
      parameters: jsonSchema(IdArgumentsSchema),
      annotations: { destructive: true },
    },
  ];
}

const text = (value: unknown): ToolResult => ({ content: JSON.stringify(value, null, 2) });

/**
 * One agent's subagent tools over the run's {@link SubagentManager}. Calls that wait (a blocking spawn,
 * `subagent_result` with `wait_seconds`) are given the subagents' own time limit, never the generic
 * `tool_timeout_seconds`; when the agent's turn stops, only the wait ends.
 */
export function subagentToolProvider(
  manager: SubagentManager,
  agentId: string,
  types: ReadonlyMap<string, SubagentType>,
): ToolProvider {
  const tools = definitions(types);
  const call = async (
    name: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolResult> => {
    switch (name) {
      case 'spawn_subagents': {
        const { tasks, background } = SpawnArgumentsSchema.parse(args);
        const started = await manager.spawn(agentId, tasks, background);
        if (background) return text({ subagents: started });
        return text({
          subagents: await manager.waitAll(
            agentId,
            started.map((s) => s.id),
            context.signal,
          ),
        });
      }
      case 'list_subagents':
        return text({ subagents: manager.list(agentId) });
      case 'subagent_result': {
        const { id, wait_seconds } = ResultArgumentsSchema.parse(args);
        return text(await manager.result(agentId, id, wait_seconds, context.signal));
      }
      case 'send_message_to_subagent': {
        const { id, text: message } = MessageArgumentsSchema.parse(args);
        const accepted = manager.message(agentId, id, message);
        return accepted
          ? text({ delivered: true })
          : { content: `subagent ${id} did not take the message (it is finishing)`, isError: true };
      }
      case 'cancel_subagent':
        return text(await manager.cancel(agentId, IdArgumentsSchema.parse(args).id));
      default:
        return { content: `Tool ${name} is not a subagent tool.`, isError: true };
    }
  };
  return {
    name: 'subagents',
    async start(context) {
      manager.attach(agentId, {
        emit: (event) => context.report(event),
        addCost: (dollars) => context.addCost?.(dollars),
      });
    },
    tools: () => tools,
    async call(name, args, context) {
      try {
        return await call(name, args, context);
      } catch (error) {
        if (error instanceof SubagentRefusal) return { content: error.message, isError: true };
        throw error;
      }
    },
    // A wait lasts as long as the subagents may run, plus a margin for their logs to close.
    minTimeoutMs: (name) =>
      name === 'spawn_subagents' || name === 'subagent_result' || name === 'cancel_subagent'
        ? (manager.limits.maxTimeout + 90) * 1000
        : undefined,
    async close() {
      await manager.close();
    },
  };
}
