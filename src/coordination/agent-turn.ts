import type { ChatMessage, ToolCall } from '../types/messages.js';
import { ModelBehaviourError } from '../types/errors.js';
import type { SeenAnswers } from './coordination-state.js';
import { runModelStep } from './model-step.js';
import { noveltyRefusal } from './novelty.js';
import {
  coordinationSystemPrompt,
  coordinationUserMessage,
  enforcement,
  finalRoundNote,
  updateMessage,
  voteOnlyNote,
  wrapUpMessage,
} from './prompts.js';
import type { RunContext } from './run-context.js';
import { executeToolCalls, noTools } from './tool-step.js';
import { forViewer, showAnswerFiles, withWorkspaceNote } from './workspace-view.js';
import { parseWorkflowCall, workflowToolDefinitions, workflowToolNames } from './workflow-tools.js';

export type TurnSuccess = 'answered' | 'voted';

/**
 * One coordination turn of one agent: model steps with ordinary tool calls between them, until the
 * agent makes exactly one valid workflow call. Misuse is answered with a tool error and counts
 * against `maxEnforcementRetries`; when that budget is spent the turn throws.
 */
export async function runCoordinationTurn(
  ctx: RunContext,
  agentIndex: number,
  turn: number,
  signal: AbortSignal,
): Promise<TurnSuccess> {
  const { state, settings } = ctx;
  const agent = state.agent(agentIndex);
  const agentId = agent.spec.id;
  const registry = agent.spec.tools ?? noTools;

  // The agent's view: which version of each answer it has seen, and the global version it matches.
  let seen: SeenAnswers = state.snapshot(agentIndex);
  let seenVersion = state.versionFor(agentIndex);
  const labelsOf = (s: SeenAnswers) => [...s].map(([i, v]) => state.answerAt(i, v).label);
  const votableIds = () => [...seen.keys()].sort((a, b) => a - b).map((i) => state.agent(i).anonymousId);

  /** Brings the view (and the peers' files behind it) up to date and returns the update text for the model. */
  const refreshView = async (): Promise<string> => {
    const changed = state.changedSince(seen, agentIndex);
    seen = state.snapshot(agentIndex);
    seenVersion = state.versionFor(agentIndex);
    await showAnswerFiles(ctx, agentIndex, seen);
    ctx.emit({ type: 'agent.update.injected', agentId, labels: changed.map((a) => a.label) });
    return updateMessage(
      forViewer(
        ctx,
        agentIndex,
        changed.map((a) => ({ anonymousId: state.agent(a.agentIndex).anonymousId, content: a.content })),
      ),
      votableIds(),
    );
  };

  // Past its answer limit an agent is not offered new_answer at all (grammar-constrained local models
  // can then only vote), and the prompt says why; a call anyway is still refused below.
  const limit = settings.maxNewAnswersPerAgent;
  // The final round among island winners is for voting only.
  const finalRound = state.finalists !== null;
  const mayAnswer = !finalRound && (limit === null || agent.answers.length < limit);
  let wrapUpSent = false;
  await showAnswerFiles(ctx, agentIndex, seen);
  ctx.emit({ type: 'agent.turn.started', agentId, turn, visibleAnswers: labelsOf(seen) });
  const opening = coordinationUserMessage(
    ctx.question,
    ctx.history,
    forViewer(ctx, agentIndex, state.viewFor(agentIndex, seen)),
    {
      paraphrase: ctx.paraphraseFor(agentIndex),
      restarts: ctx.restartNotes,
      clock: ctx.budgetNote(),
    },
  );
  const notes = [
    finalRound ? finalRoundNote() : null,
    !mayAnswer && !finalRound && limit !== null ? voteOnlyNote(limit) : null,
  ].filter((n): n is string => n !== null);
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: withWorkspaceNote(
        ctx,
        agentId,
        'coordination',
        coordinationSystemPrompt(
          agent.spec.systemMessage,
          ctx.planning
            ? { deferred: ctx.planning.deferredFor(agentId), instruction: settings.planningModeInstruction }
            : null,
          { sensitivity: settings.votingSensitivity, persona: ctx.personaFor(agentIndex) },
        ),
      ),
    },
    { role: 'user', content: [opening, ...notes].join('\n\n') },
  ];

  let enforcementUsed = 0;
  const reject = (toolName: 'new_answer' | 'vote' | null, reason: string) => {
    const retriesLeft = Math.max(0, settings.maxEnforcementRetries - enforcementUsed);
    ctx.emit({ type: 'workflow.rejected', agentId, toolName, reason, retriesLeft });
    if (retriesLeft === 0) {
      throw new ModelBehaviourError(`${agentId} misused the workflow tools too often: ${reason}`);
    }
    enforcementUsed++;
  };
  const respond = (call: ToolCall, content: string, isError: boolean) =>
    messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, isError });

  for (let step = 1; step <= settings.maxStepsPerTurn; step++) {
    // Update injection happens at the step boundary: the conversation continues, no work is thrown away.
    if (seenVersion !== state.versionFor(agentIndex))
      messages.push({ role: 'user', content: await refreshView() });
    // Near the deadline, once per turn: finish with what you have.
    if (!wrapUpSent && ctx.wrapUpRequested()) {
      wrapUpSent = true;
      messages.push({ role: 'user', content: wrapUpMessage(ctx.remainingMs()) });
    }

    const ownTools = registry.list({ agentId, phase: 'coordination' });
    const output = await runModelStep(
      ctx,
      agentIndex,
      'coordination',
      step,
      {
        messages,
        tools: [...ownTools, ...workflowToolDefinitions(votableIds(), mayAnswer)],
        // Every coordination step must call a tool (ordinary or workflow); saying so lets providers and
        // grammar-constrained local models enforce it.
        toolChoice: 'required',
      },
      signal,
    );
    messages.push({ role: 'assistant', content: output.text, toolCalls: output.toolCalls });

    const workflowCalls = output.toolCalls.filter((c) => workflowToolNames.has(c.name));
    const otherCalls = output.toolCalls.filter((c) => !workflowToolNames.has(c.name));
    const offered = new Set(ownTools.map((t) => t.name));
    messages.push(
      ...(await executeToolCalls(ctx, agentId, 'coordination', registry, offered, otherCalls, signal)),
    );

    if (workflowCalls.length === 0) {
      if (otherCalls.length > 0) continue;
      reject(null, enforcement.noWorkflowCall);
      messages.push({ role: 'user', content: enforcement.noWorkflowCall });
      continue;
    }
    if (workflowCalls.length > 1) {
      for (const call of workflowCalls) respond(call, enforcement.twoWorkflowCalls, true);
      reject(null, enforcement.twoWorkflowCalls);
      continue;
    }

    const call = workflowCalls[0] as ToolCall;
    const parsed = parseWorkflowCall(call);
    const refuse = (toolName: 'new_answer' | 'vote', reason: string) => {
      respond(call, reason, true);
      reject(toolName, reason);
    };

    if (parsed.kind === 'invalid') {
      refuse(parsed.toolName, parsed.reason);
      continue;
    }

    if (parsed.kind === 'new_answer') {
      if (!mayAnswer) {
        refuse('new_answer', finalRound ? enforcement.finalRoundOnly : enforcement.answerLimit(limit ?? 0));
        continue;
      }
      const current = state
        .currentAnswers(agentIndex)
        .map((a) => ({ anonymousId: state.agent(a.agentIndex).anonymousId, content: a.content }));
      // What an agent submits reaches its peers' prompts, the views and the final answer: scrubbed once, here.
      const content = ctx.scrub(parsed.content);
      const refusal = noveltyRefusal(content, current, settings.answerNoveltyRequirement);
      if (refusal) {
        refuse('new_answer', refusal);
        continue;
      }
      // The files go with the answer: its snapshot exists before anyone can see the answer.
      await ctx.workspaces?.snapshot(agentId, `${agent.anonymousId}.${agent.answers.length + 1}`);
      if (signal.aborted) throw signal.reason;
      const { answer, clearedVoters } = state.acceptAnswer(agentIndex, content);
      ctx.emit({
        type: 'answer.submitted',
        agentId,
        anonymousId: agent.anonymousId,
        label: answer.label,
        content: answer.content,
      });
      if (clearedVoters.length > 0) {
        ctx.emit({
          type: 'votes.reset',
          causedBy: answer.label,
          clearedVoters: clearedVoters.map((a) => a.spec.id),
        });
      }
      ctx.answerAccepted(agentIndex);
      return 'answered';
    }

    // A vote.
    if (seen.size === 0) {
      refuse('vote', enforcement.voteBeforeAnswers);
      continue;
    }
    const targetIndex = state.indexOfAnonymousId(parsed.agentId);
    const targetVersion = targetIndex === undefined ? undefined : seen.get(targetIndex);
    if (targetIndex === undefined || targetVersion === undefined) {
      refuse('vote', enforcement.unknownVoteTarget(parsed.agentId, votableIds()));
      continue;
    }
    const target = state.agent(targetIndex);
    const targetLabel = state.answerAt(targetIndex, targetVersion).label;
    const counted = seenVersion === state.versionFor(agentIndex);
    // The reason goes to the winner's presentation prompt.
    const reason = ctx.scrub(parsed.reason);
    ctx.emit({
      type: 'vote.cast',
      agentId,
      targetAgentId: target.spec.id,
      targetAnonymousId: target.anonymousId,
      targetLabel,
      reason,
      counted,
    });
    if (!counted) {
      // The vote was for a version the agent saw, not the current one: answer with the update instead.
      respond(call, enforcement.staleVote(await refreshView()), false);
      continue;
    }
    state.castVote(agentIndex, { targetIndex, targetLabel, reason });
    return 'voted';
  }
  throw new ModelBehaviourError(enforcement.tooManySteps(settings.maxStepsPerTurn));
}
