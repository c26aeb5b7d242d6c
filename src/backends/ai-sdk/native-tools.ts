import type { JSONSchema7, LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider';
import type { ChatMessage, ToolDefinition } from '../../types/messages.js';

/**
 * Turns a tool definition marked `native` (docs/computer-use.md) into the vendor's own tool, e.g.
 * `anthropic.tools.computer_20250124(...)` named after the definition; undefined when this backend
 * or model has none, and the definition goes as an ordinary function tool.
 */
export type NativeToolFactory = (definition: ToolDefinition) => LanguageModelV3ProviderTool | undefined;

/**
 * How many of the latest native-tool screenshots stay in the history; older ones are replaced by their
 * path. Anthropic's reference agent keeps three: each picture costs about as much as a page of text,
 * and a long desktop session would otherwise resend dozens on every step.
 */
export const NATIVE_IMAGES_KEPT = 3;

/** The request's tools as the call's entries, and the names that went as vendor tools. */
export function toCallTools(
  definitions: readonly ToolDefinition[],
  nativeTool: NativeToolFactory | undefined,
): { tools: (LanguageModelV3FunctionTool | LanguageModelV3ProviderTool)[]; nativeNames: Set<string> } {
  const nativeNames = new Set<string>();
  const tools = definitions.map((definition): LanguageModelV3FunctionTool | LanguageModelV3ProviderTool => {
    const native = definition.native === undefined ? undefined : nativeTool?.(definition);
    if (native) {
      nativeNames.add(definition.name);
      return native;
    }
    return {
      type: 'function',
      name: definition.name,
      description: definition.description,
      inputSchema: definition.parameters as JSONSchema7,
    };
  });
  return { tools, nativeNames };
}

/**
 * The history with only the latest {@link NATIVE_IMAGES_KEPT} native-tool screenshots; older ones are
 * named by path in their result's text. (The kept ones travel inside their tool results: the backend
 * marks native results with `MediaConversion.keepsMediaInResult`.)
 */
export function trimNativeScreenshots(
  messages: readonly ChatMessage[],
  nativeNames: ReadonlySet<string>,
): readonly ChatMessage[] {
  if (nativeNames.size === 0) return messages;
  let kept = 0;
  const trimmed = [...messages];
  for (let index = trimmed.length - 1; index >= 0; index--) {
    const message = trimmed[index]!;
    if (message.role !== 'tool' || !nativeNames.has(message.toolName) || !message.media?.length) continue;
    if (kept < NATIVE_IMAGES_KEPT) {
      kept += 1;
      continue;
    }
    const { media, ...rest } = message;
    const names = media.map((part) => part.path ?? part.name).join(', ');
    trimmed[index] = { ...rest, content: `${rest.content}\n[older screenshot left out: ${names}]` };
  }
  return trimmed;
}
