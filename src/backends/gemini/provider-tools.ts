import type { GoogleGenerativeAIProvider } from '@ai-sdk/google';
import type { ToolSet } from 'ai';
import type { BackendFeatures } from '../../types/backend.js';

/** Tool-set keys the SDK expects for Gemini's built-in tools (its stream names code runs `code_execution`). */
export const GOOGLE_SEARCH = 'google_search';
export const CODE_EXECUTION = 'code_execution';

/** Gemini's built-in tools our features ask for: Google Search grounding and code execution. */
export function geminiProviderTools(
  provider: GoogleGenerativeAIProvider,
  features: BackendFeatures | undefined,
): ToolSet {
  const tools: ToolSet = {};
  if (features?.webSearch === true) tools[GOOGLE_SEARCH] = provider.tools.googleSearch({});
  if (features?.codeExecution === true) tools[CODE_EXECUTION] = provider.tools.codeExecution({});
  return tools;
}

/**
 * Whether `modelId` accepts built-in tools and function declarations in one request. Gemini 3 does
 * ("tool combination"); Gemini 1.x and 2.x reject it ("Tool use with function calling is unsupported"),
 * and the AI SDK then silently drops the function declarations. Mirrors the SDK's own model check.
 */
export function geminiSupportsToolCombination(modelId: string): boolean {
  const id = modelId.toLowerCase();
  if (!/(^|\/)gemini-/.test(id)) return false;
  const older =
    /(^|\/)gemini-[12](?:[.-]|$)/.test(id) ||
    /(^|\/)gemini-pro(?:-vision)?$/.test(id) ||
    /(^|\/)gemini-robotics-er-1\.5(?:[.-]|$)/.test(id);
  return !older;
}
