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
import { addUserNote, deliverHumanMessages, earlierHumanMessages, voteBeforeMessage } from './steering.js';
import { executeToolCalls, noTools } from './tool-step.js';
import { questionMessage } from './media-filter.js';
import { forViewer, showAnswerFiles, withWorkspaceNote } from './workspace-view.js';
import { parseWorkflowCall, VOTE, workflowToolDefinitions, workflowToolNames } from './workflow-tools.js';
import { checklistEnforcement } from './quality/quality-prompts.js';

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
    policy?.viewChanged?.();
    await showAnswerFiles(ctx, agentIndex, seen);
    ctx.emit({ type: 'agent.update.injected', agentId, labels: changed.map((a) => a.label) });
    const update = updateMessage(
      forViewer(
        ctx,
        agentIndex,
        changed.map((a) => ({ anonymousId: state.agent(a.agentIndex).anonymousId, content: a.content })),
      ),
      votableIds(),
    );
    const next = policy?.afterUpdate?.() ?? null;
    return next === null ? update : `${update}\n\n${next}`;
  };

  // Past its answer limit an agent is not offered new_answer at all (grammar-constrained local models
  // can then only vote), and the prompt says why; a call anyway is still refused below.
  const limit = settings.maxNewAnswersPerAgent;
  // The final round among island winners is for voting only.
  const finalRound = state.finalists !== null;
  const mayAnswer = !finalRound && (limit === null || agent.answers.length < limit);
  // Checklist gate or decomposition: what this mode changes in the turn (null in plain voting).
  const policy = ctx.turnPolicy?.(ctx, agentIndex, finalRound) ?? null;
  let wrapUpSent = false;
  await showAnswerFiles(ctx, agentIndex, seen);
  ctx.emit({ type: 'agent.turn.started', agentId, turn, visibleAnswers: labelsOf(seen) });
  const opening = coordinationUserMessage(
    ctx.question,
    ctx.history,
    forViewer(ctx, agentIndex, policy?.view?.(seen) ?? state.viewFor(agentIndex, seen)),
    {
      paraphrase: ctx.paraphraseFor(agentIndex),
      restarts: ctx.restartNotes,
      clock: ctx.budgetNote(),
    },
  );
  const notes = [
    finalRound ? finalRoundNote() : null,
    !mayAnswer && !finalRound && limit !== null ? voteOnlyNote(limit) : null,
    ...(policy?.openingNotes?.() ?? []),
  ].filter((n): n is string => n !== null);
  const policyNote = policy?.systemNote?.() ?? null;
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
        ) + (policyNote ? `\n\n${policyNote}` : ''),
      ),
    },
    questionMessage(ctx, agentId, [opening, ...notes].join('\n\n')),
  ];
  // The user's messages from earlier turns still apply: restated in every new conversation.
  const earlier = earlierHumanMessages(ctx, agentIndex);
  if (earlier) addUserNote(messages, earlier);

  let enforcementUsed = 0;
  const reject = (toolName: 'new_answer' | 'vote' | 'submit_checklist' | null, reason: string) => {
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
    // Messages from the user, at the step boundary too.
    const human = deliverHumanMessages(ctx, agentIndex);
    if (human) addUserNote(messages, human);

    const ownTools = registry.list({ agentId, phase: 'coordination' });
    const output = await runModelStep(
      ctx,
      agentIndex,
      'coordination',
      step,
      {
        messages,
        tools: [
          ...ownTools,
          ...(policy
            ? policy.tools(votableIds(), mayAnswer, seen)
            : workflowToolDefinitions(votableIds(), mayAnswer)),
        ],
        // Every coordination step must call a tool (ordinary or workflow); saying so lets providers and
        // grammar-constrained local models enforce it.
        toolChoice: 'required',
      },
      signal,
    );
    // Compression summarised older steps: the turn goes on from the shorter history.
    if (output.history) messages.splice(0, messages.length, ...output.history);
    messages.push({ role: 'assistant', content: output.text, toolCalls: output.toolCalls });

    const policyCalls = output.toolCalls.filter((c) => policy?.ownCalls.has(c.name));
    const workflowCalls = output.toolCalls.filter((c) => workflowToolNames.has(c.name));
    const otherCalls = output.toolCalls.filter(
      (c) => !workflowToolNames.has(c.name) && !policy?.ownCalls.has(c.name),
    );
    const offered = new Set(ownTools.map((t) => t.name));
    messages.push(
      ...(await executeToolCalls(
        ctx,
        { agentId, phase: 'coordination', registry, offered, signal },
        otherCalls,
      )),
    );

    // The checklist (submit_checklist) is answered with its verdict; the turn goes on from there.
    if (policy?.handleCall && policyCalls.length > 0) {
      for (const [i, call] of policyCalls.entries()) {
        const result =
          i === 0
            ? policy.handleCall(call, seen)
            : { content: 'Submit one checklist per step.', refused: null };
        respond(call, result.content, result.refused !== null || i > 0);
        if (result.refused !== null) reject('submit_checklist', result.refused);
      }
      // A workflow call in the same step was made before the verdict: not accepted, at no retry cost.
      for (const call of workflowCalls) respond(call, checklistEnforcement.sameStep, true);
      continue;
    }

    if (workflowCalls.length === 0) {
      if (otherCalls.length > 0) continue;
      const unfinished = policy?.noWorkflowCall?.(seen) ?? enforcement.noWorkflowCall;
      reject(null, unfinished);
      messages.push({ role: 'user', content: unfinished });
      continue;
    }
    if (workflowCalls.length > 1) {
      for (const call of workflowCalls) respond(call, enforcement.twoWorkflowCalls, true);
      reject(null, enforcement.twoWorkflowCalls);
      continue;
    }

    const call = workflowCalls[0] as ToolCall;
    const refuse = (toolName: 'new_answer' | 'vote', reason: string) => {
      respond(call, reason, true);
      reject(toolName, reason);
    };
    // Decomposition's per-subtask votes have their own arguments and bookkeeping.
    if (call.name === VOTE && policy?.vote) {
      const outcome = await policy.vote(call, {
        seen,
        current: seenVersion === state.versionFor(agentIndex),
        refuse: (reason) => refuse('vote', reason),
        stale: async () => {
          respond(call, enforcement.staleVote(await refreshView()), false);
        },
      });
      if (outcome === 'voted') return 'voted';
      continue;
    }
    const parsed = parseWorkflowCall(call);

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
      const checked = policy?.checkAnswer?.(call, seen) ?? { plan: null };
      if ('refusal' in checked) {
        refuse('new_answer', checked.refusal);
        continue;
      }
      const refusal = noveltyRefusal(content, current, settings.answerNoveltyRequirement);
      if (refusal) {
        refuse('new_answer', refusal);
        continue;
      }
      // The files go with the answer: its snapshot exists before anyone can see the answer.
      await ctx.workspaces?.snapshot(agentId, `${agent.anonymousId}.${agent.answers.length + 1}`);
      if (signal.aborted) throw signal.reason;
      const { answer, clearedVoters } = state.acceptAnswer(agentIndex, content);
      policy?.answerAccepted?.(checked.plan);
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
    const policyRefusal = policy?.checkVote?.(targetIndex) ?? null;
    if (policyRefusal !== null) {
      refuse('vote', policyRefusal);
      continue;
    }
    const target = state.agent(targetIndex);
    const targetLabel = state.answerAt(targetIndex, targetVersion).label;
    const stale = seenVersion !== state.versionFor(agentIndex);
    // A vote cast before the agent read a message from the user is not counted either.
    const counted = !stale && !ctx.inbox?.hasPending(agentIndex);
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
      const human = deliverHumanMessages(ctx, agentIndex);
      const replies = [
        ...(stale ? [enforcement.staleVote(await refreshView())] : []),
        ...(human ? [voteBeforeMessage(human)] : []),
      ];
      respond(call, replies.join('\n\n'), false);
      continue;
    }
    state.castVote(agentIndex, { targetIndex, targetLabel, reason });
    return 'voted';
  }
  throw new ModelBehaviourError(enforcement.tooManySteps(settings.maxStepsPerTurn));
}
