import { z } from 'zod';
import type { MediaPart } from './media.js';

/** A JSON Schema object describing tool arguments (draft-07 subset that every provider accepts). */
export type JsonSchema = { [key: string]: unknown };

/** A tool call the model asked for. `arguments` is the parsed JSON (or the raw string if it did not parse). */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * Provider-neutral chat history. Backends translate it to their wire format.
 *
 * `media` on a user message is what the user attached (only kinds the agent's model takes: the core
 * names the others in text); on a tool message it is what the tool returned to be seen (`read_media`,
 * a screenshot). Backends whose wire format cannot carry media in a tool result send it in a user
 * message right after the results.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; media?: readonly MediaPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      content: string;
      isError?: boolean;
      media?: readonly MediaPart[];
    };

/**
 * What a tool says about its effects (from MCP annotations or a custom tool's declaration). Planning
 * mode uses it; backends never send it to the model.
 */
export interface ToolAnnotations {
  /** The tool only reads (MCP `readOnlyHint`). */
  readOnly?: boolean;
  /** The tool may destroy or overwrite data (MCP `destructiveHint`). */
  destructive?: boolean;
  /**
   * Its effects stay inside the agent's own workspace while the agents coordinate (the permission
   * check enforces it), so planning mode lets it run: building in one's workspace is not acting on
   * the outside world.
   */
  confined?: boolean;
}

/**
 * A tool that stands for a vendor's own tool (docs/computer-use.md): a backend that knows the vendor's
 * version for its model sends that instead of a function tool (Anthropic's `computer_2025…` tool);
 * any other backend sends the definition as an ordinary function tool. Calls and results travel as
 * for any tool; a native tool's result media stays inside the vendor's tool result.
 */
export interface NativeToolSpec {
  /** A desktop driven with screenshots, mouse and keyboard; arguments are the vendor's `action` calls. */
  kind: 'computer';
  /** The screen the model acts on (its coordinates are in these pixels). */
  displayWidthPx: number;
  displayHeightPx: number;
}

/** A tool offered to the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  annotations?: ToolAnnotations;
  /** Set on a tool a backend may send as its vendor's own tool; see {@link NativeToolSpec}. */
  native?: NativeToolSpec;
}
