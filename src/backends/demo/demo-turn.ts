import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';

/**
 * One request to a scripted demo agent, read the way a model reads it: from the prompt massgen sent
 * (the same text a real model gets) and the tools it offered. Nothing here knows the orchestrator's
 * internals — only the markers its prompts put around the question and the answers.
 */
export interface DemoTurn {
  /** The question: the ORIGINAL MESSAGE, else the last user text (without the conversation before it). */
  question: string;
  /** The function tools offered, by name. */
  tools: readonly string[];
  /** The ids the `vote` tool accepts (empty when it is not offered). */
  votable: readonly string[];
  /** Every answer in view by anonymous id, as last shown (an update replaces what the opening showed). */
  answers: ReadonlyMap<string, string>;
  /** In a final presentation: the presenter's own winning answer; otherwise null. */
  ownFinal: string | null;
  /** Workflow tools already called in this turn: refused or not counted, or the turn would be over. */
  tried: readonly string[];
}

const ORIGINAL = /<ORIGINAL MESSAGE>\n([\s\S]*?)\n<END OF ORIGINAL MESSAGE>/;
const HISTORY = /^<CONVERSATION SO FAR>[\s\S]*?<END OF CONVERSATION SO FAR>\s*/;
const ANSWER = /<(agent\d+)>\n([\s\S]*?)\n<end of \1>/g;
const OWN_FINAL = /<[^<>\n]+ — YOUR ANSWER>\n([\s\S]*?)\n<end of [^<>\n]+>/;

/** The text a message carries for the model: its text parts and tool results. */
function textOf(message: LanguageModelV3Prompt[number]): string {
  if (message.role === 'system') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type !== 'tool-result') return '';
      const output = part.output;
      return output.type === 'text' || output.type === 'error-text' ? output.value : '';
    })
    .join('\n');
}

/** The `enum` of the vote tool's `agent_id`, if it is offered. */
function votableIds(tools: LanguageModelV3CallOptions['tools']): string[] {
  const vote = tools?.find((tool) => tool.type === 'function' && tool.name === 'vote');
  if (vote?.type !== 'function') return [];
  const schema = vote.inputSchema as { properties?: { agent_id?: { enum?: unknown } } };
  const ids = schema.properties?.agent_id?.enum;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** Reads one call's prompt and tools as a {@link DemoTurn}. */
export function readDemoTurn(call: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): DemoTurn {
  const said = call.prompt.filter((m) => m.role === 'user' || m.role === 'tool').map(textOf);
  const asked = call.prompt.filter((m) => m.role === 'user').map(textOf);
  const question =
    asked.map((text) => ORIGINAL.exec(text)?.[1]).find((found) => found !== undefined) ?? asked.at(-1) ?? '';
  const answers = new Map<string, string>();
  for (const text of said) for (const [, id, content] of text.matchAll(ANSWER)) answers.set(id!, content!);
  const tried = call.prompt.flatMap((m) =>
    m.role === 'assistant'
      ? m.content.flatMap((part) =>
          part.type === 'tool-call' && (part.toolName === 'new_answer' || part.toolName === 'vote')
            ? [part.toolName]
            : [],
        )
      : [],
  );
  return {
    question: question.replace(HISTORY, '').trim(),
    tools: (call.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.name] : [])),
    votable: votableIds(call.tools),
    answers,
    ownFinal: said.map((text) => OWN_FINAL.exec(text)?.[1]).find((found) => found !== undefined) ?? null,
    tried,
  };
}
