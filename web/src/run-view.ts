import type { RunEvent } from '../../src/types/events.js';
import { isVoteBeingWritten, reduceRunState } from '../../src/types/run-state.js';
import { reducePermissions } from './permissions-view.js';
import {
  initialRunView,
  type AgentStream,
  type HumanMessageView,
  type RunView,
  type TurnView,
} from './run-view-model.js';
import { isSubagentEvent, reduceSubagentRuns } from './subagent-runs.js';

// The web page's view of one run (run-view-model.ts), built from its events by a pure reducer, so a
// logged run replays exactly as it happened.

export * from './run-view-model.js';

const stream = (agentId: string): AgentStream => ({ agentId, turns: [] });
const emptyTurn = (turn: number): TurnView => ({ turn, text: '', reasoning: '', tools: [], received: [] });
const args = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function withStream(view: RunView, agentId: string, patch: (s: AgentStream) => AgentStream): RunView {
  return {
    ...view,
    streams: { ...view.streams, [agentId]: patch(view.streams[agentId] ?? stream(agentId)) },
  };
}

/** Patches the agent's current turn (opening one if a delta arrives before any turn started). */
function withTurn(view: RunView, agentId: string, patch: (t: TurnView) => TurnView): RunView {
  return withStream(view, agentId, (s) => {
    const current = s.turns.at(-1) ?? emptyTurn(0);
    return { ...s, turns: [...s.turns.slice(0, Math.max(0, s.turns.length - 1)), patch(current)] };
  });
}

function note(view: RunView, event: RunEvent, text: string): RunView {
  const agentId = 'agentId' in event ? event.agentId : null;
  return { ...view, timeline: [...view.timeline, { seq: event.seq, ts: event.ts, agentId, text }] };
}

/** Who sent a steering message, as the timeline says it (a Stop hook's block is the user's hook). */
const sender = (source: string) =>
  source === 'web' ? 'you' : source === 'hook' ? 'your Stop hook' : `you (${source})`;

/** Applies one event; events at or below `lastSeq` are ignored, so a replayed catch-up never doubles. */
export function reduceRunView(previous: RunView, event: RunEvent): RunView {
  if (event.seq <= previous.lastSeq) return previous;
  const view: RunView = {
    ...previous,
    run: reduceRunState(previous.run, event),
    permissions: reducePermissions(previous.permissions, event),
    lastSeq: event.seq,
  };
  if (isSubagentEvent(event)) {
    return { ...view, subagents: reduceSubagentRuns(view.subagents, event, initialRunView, reduceRunView) };
  }
  switch (event.type) {
    case 'human.message': {
      const text = `${sender(event.source)} → ${event.target ?? 'all agents'}: ${event.text}`;
      const message: HumanMessageView = {
        seq: event.seq,
        ts: event.ts,
        text: event.text,
        target: event.target,
        source: event.source,
        deliveredTo: [],
      };
      return {
        ...view,
        messages: [...view.messages, message],
        timeline: [
          ...view.timeline,
          { seq: event.seq, ts: event.ts, agentId: null, text, messageSeq: event.seq },
        ],
      };
    }
    case 'human.message.delivered': {
      const message = view.messages.find((m) => m.seq === event.messageSeq);
      if (!message) return view;
      return withTurn(
        {
          ...view,
          messages: view.messages.map((m) =>
            m === message && !m.deliveredTo.includes(event.agentId)
              ? { ...m, deliveredTo: [...m.deliveredTo, event.agentId] }
              : m,
          ),
        },
        event.agentId,
        (t) => ({ ...t, received: [...t.received, { seq: message.seq, text: message.text }] }),
      );
    }
    case 'coordination.answer_now':
      return note(
        { ...view, answerNow: view.answerNow ?? { seq: event.seq, source: event.source } },
        event,
        `${sender(event.source)} asked for the answer now`,
      );
    case 'run.started':
      return note(
        {
          ...view,
          attachments: event.attachments ?? [],
          streams: Object.fromEntries(event.agents.map((a) => [a.agentId, stream(a.agentId)])),
        },
        event,
        `run started with ${event.agents.length} agents`,
      );
    case 'run.warning':
      return note(view, event, `warning: ${event.message}`);
    case 'ask_others.asked':
      return note(
        event.mode === 'human'
          ? {
              ...view,
              questions: [
                ...view.questions,
                {
                  questionId: event.questionId,
                  agentId: event.agentId,
                  question: event.question,
                  deadline: event.deadline,
                },
              ],
            }
          : view,
        event,
        `asked ${event.mode === 'human' ? 'you' : event.targets.join(', ')}: ${event.question}`,
      );
    case 'ask_others.answered':
      return note(
        { ...view, questions: view.questions.filter((q) => q.questionId !== event.questionId) },
        event,
        event.outcome === 'answered'
          ? `${event.from === 'human' ? sender(event.source ?? 'web') : event.from} answered: ${event.answer ?? ''}`
          : `no answer${event.from ? ` from ${event.from}` : ''} (${event.outcome})`,
      );
    case 'task_plan.changed': {
      const done = event.tasks.filter((t) => t.status === 'completed').length;
      return note(
        {
          ...view,
          plans: { ...view.plans, [event.agentId]: event.tasks },
          fileChanges: view.fileChanges + 1,
        },
        event,
        `task plan ${event.action === 'restored' ? 'carried over' : event.action.replaceAll('_', ' ')}: ${done}/${event.tasks.length} done`,
      );
    }
    case 'agent.turn.started':
      return note(
        withStream(view, event.agentId, (s) => ({ ...s, turns: [...s.turns, emptyTurn(event.turn)] })),
        event,
        `turn ${event.turn} started`,
      );
    case 'agent.text.delta':
      if (event.phase === 'presentation') return { ...view, presentation: view.presentation + event.text };
      return withTurn(view, event.agentId, (s) =>
        event.kind === 'reasoning'
          ? { ...s, reasoning: s.reasoning + event.text }
          : { ...s, text: s.text + event.text },
      );
    case 'tool.call.started':
      // A vote being written shows as the vote itself (`vote.cast`), not as a call with no arguments.
      if (isVoteBeingWritten(event)) return view;
      return withTurn(view, event.agentId, (s) => ({
        ...s,
        tools: [
          ...s.tools,
          {
            callId: event.callId,
            toolName: event.toolName,
            arguments: args(event.arguments),
            result: null,
            isError: false,
            waitingApproval: false,
            media: [],
          },
        ],
      }));
    case 'tool.call.finished':
      if (isVoteBeingWritten(event)) return view;
      // Any tool may have written a file (write_file, a shell command, an MCP server's tool).
      return withTurn({ ...view, fileChanges: view.fileChanges + 1 }, event.agentId, (s) => ({
        ...s,
        tools: s.tools.map((t) =>
          t.callId === event.callId
            ? {
                ...t,
                result: event.result,
                isError: event.isError,
                waitingApproval: false,
                media: event.media ?? [],
              }
            : t,
        ),
      }));
    case 'tool.approval.requested':
      return note(
        {
          ...view,
          approvals: [
            ...view.approvals,
            {
              agentId: event.agentId,
              callId: event.callId,
              toolName: event.toolName,
              arguments: args(event.arguments),
            },
          ],
        },
        event,
        `${event.toolName} waits for approval`,
      );
    case 'tool.approval.resolved':
      return note(
        { ...view, approvals: view.approvals.filter((a) => a.callId !== event.callId) },
        event,
        `${event.toolName} ${event.approved ? 'approved' : 'denied'}`,
      );
    case 'answer.submitted':
      // The log folder gets the answer (and the workspace its snapshot).
      return note({ ...view, fileChanges: view.fileChanges + 1 }, event, `new answer ${event.label}`);
    case 'votes.reset':
      return note(
        {
          ...view,
          votes: view.votes.map((v) =>
            event.clearedVoters.includes(v.voterId) && !v.struck ? { ...v, struck: 'reset' as const } : v,
          ),
        },
        event,
        `${event.causedBy} reset the votes of ${event.clearedVoters.join(', ') || 'nobody'}`,
      );
    case 'vote.cast':
      return note(
        {
          ...view,
          votes: [
            // An agent holds one vote (decomposition: one per subtask): its earlier one is superseded.
            ...view.votes.map((v) =>
              v.voterId === event.agentId && v.subtaskId === event.subtaskId && !v.struck && event.counted
                ? { ...v, struck: 'superseded' as const }
                : v,
            ),
            {
              voterId: event.agentId,
              targetId: event.targetAgentId,
              label: event.targetLabel,
              reason: event.reason,
              counted: event.counted,
              struck: event.counted ? null : ('stale' as const),
              ...(event.subtaskId === undefined ? {} : { subtaskId: event.subtaskId }),
            },
          ],
        },
        event,
        `voted for ${event.subtaskId ? `${event.subtaskId}: ` : ''}${event.targetLabel}${event.counted ? '' : ' (stale, not counted)'}`,
      );
    case 'checklist.verdict':
      return note(
        view,
        event,
        `checklist round ${event.round}: ${event.verdict} (best ${event.bestLabel}${event.failing.length > 0 ? `, fails ${event.failing.join(', ')}` : ''})`,
      );
    case 'decomposition.planned':
      return note(
        view,
        event,
        `subtasks: ${event.subtasks.map((t) => `${t.id} ${t.ownerId}`).join(', ')}; presenter ${event.presenterId}`,
      );
    case 'agent.turn.finished':
      return event.outcome === 'failed'
        ? note(view, event, `turn failed: ${event.error?.message ?? ''}`)
        : view;
    case 'agent.dropped':
      return note(view, event, `dropped: ${event.reason}`);
    case 'agent.context.compressed':
      return note(
        view,
        event,
        `context compressed: ${event.summarisedMessages} older messages summarised by ${event.model}, ~${event.savedTokens} tokens saved${event.reason === 'provider_error' ? ' (the provider refused the request as too long)' : ''}`,
      );
    case 'coordination.finished':
      return note(
        view,
        event,
        `coordination finished (${event.reason})${event.winnerId ? `: ${event.winnerId} wins` : ''}`,
      );
    case 'presentation.started':
      return note({ ...view, presentation: '' }, event, 'presenting the final answer');
    case 'presentation.finished':
      return { ...view, presentation: event.content, fileChanges: view.fileChanges + 1 };
    case 'orchestration.restarted':
      return note(
        { ...view, votes: [], presentation: '' },
        event,
        `attempt ${event.attempt}: ${event.instructions}`,
      );
    case 'run.finished':
      return note(
        { ...view, approvals: [], questions: [], fileChanges: view.fileChanges + 1 },
        event,
        `run ${event.status}`,
      );
    default:
      return view;
  }
}

/** Replays a whole event list. */
export const replay = (events: readonly RunEvent[]): RunView =>
  events.reduce(reduceRunView, initialRunView());
