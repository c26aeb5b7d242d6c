import type { RunEvent } from '../types/events.js';
import { mediaLabel } from '../media/media-label.js';
import { oneLine, truncate } from '../util/text.js';
import { computerActionArgs } from '../util/computer-action-args.js';
import {
  agentEntry,
  TOOL_TEXT,
  detail,
  json,
  patchTool,
  patchToolEntry,
  plural,
  push,
  timeline,
  withAgent,
} from './view-state-helpers.js';
import type { ApprovalState, PendingApproval, ToolActivity, ViewState } from './view-types.js';

/** The events about tools: calls, approvals, MCP servers, and the planning-mode classification. */
export type ToolEvent = Extract<
  RunEvent,
  {
    type:
      | 'tool.call.started'
      | 'tool.call.finished'
      | 'tool.approval.requested'
      | 'tool.approval.resolved'
      | 'mcp.server.ready'
      | 'mcp.server.failed'
      | 'planning.tools.classified';
  }
>;

/** Which tools run while the agents plan and which wait for the final presenter, on one line. */
function planningText(event: Extract<RunEvent, { type: 'planning.tools.classified' }>): string {
  const names = (allowed: boolean) =>
    [...new Set(event.decisions.filter((d) => d.allowed === allowed).map((d) => d.toolName))].join(', ') ||
    'none';
  return (
    `PLANNING: run now: ${names(true)}; deferred to the final presenter: ${names(false)}` +
    (event.analysisAgentId ? ` (unhinted tools classified by ${event.analysisAgentId})` : '') +
    (event.error ? `; classification FAILED, unhinted tools deferred: ${detail(event.error.message)}` : '')
  );
}

/**
 * Applies one tool event. `state` must already carry the event's run projection and count (`reduceView`
 * does that once for every event), so this adds only the live view's own tool state.
 */
export function reduceToolEvent(state: ViewState, event: ToolEvent): ViewState {
  switch (event.type) {
    case 'tool.call.started': {
      // A vendor computer action reads as its target (`left_click (120, 48)`), not as JSON.
      const args = computerActionArgs(event.toolName, event.arguments) ?? json(event.arguments);
      const providerExecuted = event.providerExecuted === true;
      return withAgent(state, event.agentId, (a) => ({
        ...push(a, {
          ts: event.ts,
          kind: 'tool',
          callId: event.callId,
          toolName: event.toolName,
          args,
          providerExecuted,
          result: null,
          isError: false,
          durationMs: null,
          deferred: false,
          approval: null,
        }),
        streaming: null,
        retry: null,
        activity: a.activity === 'answering' ? 'thinking' : a.activity,
        tool: {
          callId: event.callId,
          toolName: event.toolName,
          args,
          providerExecuted,
          state: 'running',
          durationMs: null,
        },
      }));
    }

    case 'tool.call.finished':
      return withAgent(state, event.agentId, (a) => {
        const deferred = event.deferred === true;
        // The media the call showed the model (a read_media file, a screenshot, a made image), by name.
        const media = event.media?.length ? `\n${event.media.map((m) => mediaLabel(m)).join('\n')}` : '';
        const result = truncate(event.result, TOOL_TEXT) + media;
        const patched = patchToolEntry(a, event.callId, (entry) => ({
          ...entry,
          result,
          isError: event.isError,
          durationMs: event.durationMs,
          deferred,
        }));
        const toolState: ToolActivity['state'] = deferred
          ? 'deferred'
          : a.tool?.state === 'denied'
            ? 'denied'
            : event.isError
              ? 'error'
              : 'ok';
        return patchTool(patched, event.callId, { state: toolState, durationMs: event.durationMs });
      });

    case 'tool.approval.requested': {
      const approval: PendingApproval = {
        agentId: event.agentId,
        callId: event.callId,
        toolName: event.toolName,
        phase: event.phase,
        args: json(event.arguments),
        seq: event.seq,
        ts: event.ts,
      };
      const next = withAgent(state, event.agentId, (a) =>
        patchTool(
          patchToolEntry(a, event.callId, (entry) => ({ ...entry, approval: { state: 'pending' } })),
          event.callId,
          { state: 'awaiting-approval' },
        ),
      );
      return timeline(
        { ...next, approvals: [...next.approvals, approval] },
        event,
        'approval',
        `APPROVAL NEEDED: ${event.toolName} ${truncate(oneLine(approval.args), 80)}`,
      );
    }

    case 'tool.approval.resolved': {
      const approval: ApprovalState = event.approved
        ? { state: 'approved' }
        : { state: 'denied', reason: event.reason ?? null };
      const next = withAgent(state, event.agentId, (a) =>
        patchTool(
          patchToolEntry(a, event.callId, (entry) => ({ ...entry, approval })),
          event.callId,
          { state: event.approved ? 'running' : 'denied' },
        ),
      );
      const approvals = next.approvals.filter(
        (p) => !(p.agentId === event.agentId && p.callId === event.callId),
      );
      return timeline(
        { ...next, approvals },
        event,
        event.approved ? 'approved' : 'denied',
        event.approved
          ? `${event.toolName} approved`
          : `${event.toolName} DENIED${event.reason ? `: ${detail(event.reason)}` : ''}`,
      );
    }

    case 'mcp.server.ready':
      return agentEntry(
        state,
        event,
        {
          ts: event.ts,
          kind: 'mcp-ready',
          server: event.server,
          tools: event.tools,
          durationMs: event.durationMs,
        },
        'mcp-ready',
        `MCP "${event.server}" ready: ${plural(event.tools.length, 'tool')}`,
      );

    case 'mcp.server.failed':
      return agentEntry(
        state,
        event,
        {
          ts: event.ts,
          kind: 'mcp-failed',
          server: event.server,
          message: event.message,
          retryInSeconds: event.retryInSeconds,
        },
        'mcp-failed',
        `MCP "${event.server}" FAILED: ${detail(event.message)} (` +
          (event.retryInSeconds === null ? 'off for this run' : `retry in ${event.retryInSeconds}s`) +
          ')',
      );

    case 'planning.tools.classified':
      return timeline(state, event, 'planning', planningText(event), null);
  }
}
