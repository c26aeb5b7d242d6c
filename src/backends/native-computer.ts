/**
 * Which backends offer their vendor's own computer-use tool for `tools.computer` (docs/computer-use.md).
 *
 * - **claude**: Anthropic's computer tool through `@ai-sdk/anthropic`'s `tools.computer_*`, the version
 *   chosen by model (below). Its actions run on the agent's Xvfb desktop; every result carries a
 *   screenshot as an image block inside the `tool_result`, as Anthropic expects.
 * - **openai**: not supported. OpenAI's `computer_use_preview` tool needs the Responses API's
 *   `computer_call` / `computer_call_output` items; `@ai-sdk/openai` 3.0.x offers no such tool and
 *   reads a `computer_call` as a provider-executed call it cannot answer. The generic tools are used.
 * - **gemini**: not supported. `@ai-sdk/google` 3.0.x knows Gemini's computer use only in its
 *   Interactions API model, not in the `generateContent` model this backend uses. The generic tools
 *   are used.
 *
 * The vendors' protocols are not hand-written around the SDKs: where an SDK adds a tool, this table
 * grows a row.
 */

/** The `@ai-sdk/anthropic` factory (`anthropic.tools.<version>`) for a Claude model's computer tool. */
export type ClaudeComputerVersion =
  'computer_20241022' | 'computer_20250124' | 'computer_20251124' | 'computerToolset_20260801';

/**
 * The computer tool version a Claude model takes, or null for a model without computer use (or one
 * this table does not know: it then gets the generic tools, which work with any model).
 *
 * Anthropic's table: Claude 3.5 Sonnet (v2) `computer_20241022`; Claude 3.7 Sonnet and the Claude 4
 * family `computer_20250124`; Claude Opus 4.5 and later 4.x models `computer_20251124`; the models the
 * SDK lists for the computer toolset (Opus 4.8, the Claude 5 family) `computer_toolset_20260801`.
 */
export function claudeComputerVersion(model: string): ClaudeComputerVersion | null {
  const id = model.toLowerCase();
  if (/claude-3-5-sonnet|claude-3\.5-sonnet|claude-sonnet-3-5/.test(id)) return 'computer_20241022';
  if (/claude-3-7-sonnet|claude-3\.7-sonnet|claude-sonnet-3-7/.test(id)) return 'computer_20250124';
  const family = /claude-(?:opus|sonnet|haiku|fable)-(\d+)(?:[-.](\d)(?!\d))?/.exec(id);
  if (!family) return null;
  const major = Number(family[1]);
  const minor = family[2] === undefined ? 0 : Number(family[2]);
  if (major >= 5 || (major === 4 && minor >= 8)) return 'computerToolset_20260801';
  if (major === 4 && minor >= 5 && /opus|sonnet/.test(id) && !(minor === 5 && /sonnet/.test(id)))
    return 'computer_20251124';
  if (major === 4) return 'computer_20250124';
  return null;
}

/** Whether `backendType` with `model` offers its vendor's computer tool (see the table above). */
export function supportsNativeComputer(backendType: string, model: string | undefined): boolean {
  return backendType === 'claude' && model !== undefined && claudeComputerVersion(model) !== null;
}
