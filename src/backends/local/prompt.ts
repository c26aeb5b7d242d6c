import type {
  LanguageModelV3Prompt,
  LanguageModelV3ToolChoice,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { ChatHistoryItem, ChatWrapper, LlamaModel } from 'node-llama-cpp';
import { LlamaText, resolveChatWrapper } from 'node-llama-cpp';

/**
 * Renders an AI SDK prompt (system, user, assistant and tool messages, with tool calls and results) as
 * the text a local model continues.
 *
 * A model whose GGUF carries a chat template is prompted in its own format (node-llama-cpp resolves the
 * template to one of its chat wrappers, or runs the Jinja template itself). A model without one gets a
 * plain generic format of `### System:` / `### User:` / `### Assistant:` sections.
 *
 * Tool calls do not use a template's native function-calling syntax: the model is told to answer with
 * one JSON object `{"tool": <name>, "arguments": {...}}` (and a grammar holds it to that), so earlier
 * calls appear in the history in exactly that form, and tool results come back as user turns. That keeps
 * the history consistent with what the model is asked to write.
 */

/** A tool the model is told about. */
export interface PromptTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

/** How a prompt becomes text. */
export type PromptFormat =
  /** The model's own chat template, through a node-llama-cpp chat wrapper. */
  | { kind: 'template'; wrapper: ChatWrapper }
  /** `### System:` / `### User:` / `### Assistant:` sections, for models without a template. */
  | { kind: 'generic' };

/** The rendered prompt. */
export interface RenderedPrompt {
  /** Everything up to where the assistant's reply begins. Special tokens appear only where the format puts them. */
  text: LlamaText;
  /** Texts that end the assistant's turn in free generation (besides the model's end-of-generation token). */
  stopTriggers: (LlamaText | string)[];
  /** The format actually used (a template that failed to render falls back to the generic one). */
  format: PromptFormat['kind'];
}

/** A conversation turn after flattening the AI SDK's message parts. */
interface Turn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
}

/** The format for `model`: its chat template when the GGUF has one, else the generic format. */
export function promptFormatFor(model: LlamaModel): PromptFormat {
  const template = model.fileInfo.metadata.tokenizer?.chat_template;
  if (typeof template !== 'string' || template.trim() === '') return { kind: 'generic' };
  return { kind: 'template', wrapper: resolveChatWrapper(model, { warningLogs: false }) };
}

/** The generic format's section headers. */
export const GENERIC_HEADERS = {
  system: '### System:',
  user: '### User:',
  assistant: '### Assistant:',
  tool: '### Tool result:',
} as const;

/**
 * Renders `prompt` in `format`. With `tools` (and a tool choice other than `none`) the system part lists
 * them and tells the model to answer with one `{"tool", "arguments"}` JSON object.
 */
export function renderPrompt(
  prompt: LanguageModelV3Prompt,
  options: { format: PromptFormat; tools?: readonly PromptTool[]; toolChoice?: LanguageModelV3ToolChoice },
): RenderedPrompt {
  const turns = toTurns(prompt);
  const tools = options.toolChoice?.type === 'none' ? [] : (options.tools ?? []);
  if (tools.length > 0) {
    const instructions = toolInstructions(tools, options.toolChoice);
    const system = turns.find((turn) => turn.role === 'system');
    if (system === undefined) turns.unshift({ role: 'system', text: instructions });
    else system.text = `${system.text}\n\n${instructions}`;
  }
  if (options.format.kind === 'template') {
    try {
      return renderWithTemplate(turns, options.format.wrapper);
    } catch {
      // A Jinja template may reject a history it does not expect (e.g. a strict role order); the generic
      // format is unfamiliar to the model but always renders.
    }
  }
  return renderGeneric(turns);
}

function renderGeneric(turns: readonly Turn[]): RenderedPrompt {
  const sections = turns.map((turn) => `${GENERIC_HEADERS[turn.role]}\n${turn.text.trim()}`);
  sections.push(`${GENERIC_HEADERS.assistant}\n`);
  return {
    text: LlamaText(sections.join('\n\n')),
    stopTriggers: Object.values(GENERIC_HEADERS).map((header) => `\n${header}`),
    format: 'generic',
  };
}

function renderWithTemplate(turns: readonly Turn[], wrapper: ChatWrapper): RenderedPrompt {
  const history: ChatHistoryItem[] = [];
  for (const turn of turns) {
    const last = history[history.length - 1];
    if (turn.role === 'system') {
      // Templates expect one system message, first; ours are all instructions, so they are merged.
      const first = history[0];
      if (first?.type === 'system') first.text = `${String(first.text)}\n\n${turn.text}`;
      else history.unshift({ type: 'system', text: turn.text });
    } else if (turn.role === 'assistant') {
      if (last?.type === 'model') last.response.push(`\n\n${turn.text}`);
      else history.push({ type: 'model', response: [turn.text] });
    } else if (last?.type === 'user') {
      // Tool results and user messages alternate with the assistant's turns as one user turn.
      last.text = `${last.text}\n\n${turn.text}`;
    } else {
      history.push({ type: 'user', text: turn.text });
    }
  }
  // An empty model response: the rendered text then ends where the assistant's reply begins.
  history.push({ type: 'model', response: [] });
  const state = wrapper.generateContextState({ chatHistory: history });
  return { text: state.contextText, stopTriggers: [...state.stopGenerationTriggers], format: 'template' };
}

function toTurns(prompt: LanguageModelV3Prompt): Turn[] {
  const turns: Turn[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        turns.push({ role: 'system', text: message.content });
        break;
      case 'user': {
        const text = message.content
          .map((part) =>
            part.type === 'text'
              ? part.text
              : `[attached file ${part.filename ?? part.mediaType} omitted: this model reads text only]`,
          )
          .join('\n');
        turns.push({ role: 'user', text });
        break;
      }
      case 'assistant': {
        const lines: string[] = [];
        for (const part of message.content) {
          if (part.type === 'text' && part.text.trim() !== '') lines.push(part.text);
          else if (part.type === 'tool-call') lines.push(toolCallText(part.toolName, part.input));
          else if (part.type === 'tool-result') lines.push(toolResultText(part.toolName, part.output));
          // Reasoning and files are not replayed.
        }
        turns.push({ role: 'assistant', text: lines.join('\n') });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type === 'tool-result') {
            turns.push({ role: 'tool', text: toolResultText(part.toolName, part.output) });
          }
        }
        break;
    }
  }
  return turns;
}

/** An earlier tool call, exactly as the model is asked to write one. */
export function toolCallText(toolName: string, input: unknown): string {
  let args = input;
  if (typeof input === 'string') {
    try {
      args = JSON.parse(input);
    } catch {
      // The model's own unparseable text: replayed as a string.
    }
  }
  return JSON.stringify({ tool: toolName, arguments: args ?? {} });
}

function toolResultText(toolName: string, output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
      return `Result of ${toolName}:\n${output.value}`;
    case 'json':
      return `Result of ${toolName}:\n${JSON.stringify(output.value)}`;
    case 'error-text':
      return `Error from ${toolName}:\n${output.value}`;
    case 'error-json':
      return `Error from ${toolName}:\n${JSON.stringify(output.value)}`;
    case 'execution-denied':
      return `${toolName} was not run${output.reason === undefined ? '.' : `: ${output.reason}`}`;
    case 'content':
      return `Result of ${toolName}:\n${output.value
        .map((item) => (item.type === 'text' ? item.text : `[${item.type} omitted]`))
        .join('\n')}`;
  }
}

/** The system-prompt section that lists the tools and the answer format. */
export function toolInstructions(
  tools: readonly PromptTool[],
  toolChoice?: LanguageModelV3ToolChoice,
): string {
  const lines = ['You can use these tools:', ''];
  for (const tool of tools) {
    const description = tool.description?.trim();
    lines.push(`- ${tool.name}${description === undefined || description === '' ? '' : `: ${description}`}`);
    lines.push(`  Arguments (JSON schema): ${JSON.stringify(tool.inputSchema ?? { type: 'object' })}`);
  }
  lines.push('');
  const forced = toolChoice?.type === 'tool' ? toolChoice.toolName : undefined;
  lines.push(
    forced === undefined
      ? 'Answer with exactly one JSON object and nothing else, naming the tool to use and its arguments:'
      : `Use the ${forced} tool. Answer with exactly one JSON object and nothing else:`,
  );
  lines.push(`{"tool": "<tool name>", "arguments": {<the arguments, matching the tool's schema>}}`);
  return lines.join('\n');
}
