import { Box, Text, renderToString } from 'ink';
import type { RunState } from '../../types/run-state.js';
import { totalUsage } from '../../types/run-state.js';
import { fitLine, formatCost, formatElapsed, formatTokens, tokensOf, wrapText } from '../format.js';
import { agentColor, tallyText } from '../lines.js';
import { padEndTo, textWidth } from '../../util/text.js';
import { agentRows, type ViewState } from '../view-state.js';
import { BADGE_COLORS } from './agent-panel.js';
import { FinalAnswer } from './final-answer.js';

export interface FinalScreenProps {
  view: ViewState;
  columns: number;
  /** The current time, for a run that never reported its end. */
  now: number;
}

/** One line on how the run ended. */
export function outcomeLine(run: RunState, now: number): { text: string; color: string } {
  const duration = formatElapsed((run.finishedAt ?? now) - (run.startedAt ?? now));
  const votes = tallyText(run);
  switch (run.status) {
    case 'completed':
      return {
        text:
          `✔ Completed in ${duration} — winner ${run.winnerId ?? 'unknown'}` +
          (run.winnerLabel ? ` (${run.winnerLabel})` : '') +
          (votes && run.coordinationEnd !== 'single_agent' ? ` · votes: ${votes}` : ''),
        color: 'green',
      };
    case 'timeout':
      return { text: `✖ Timed out after ${duration} with no answer`, color: 'red' };
    case 'cancelled':
      return { text: `✖ Cancelled after ${duration}`, color: 'yellow' };
    case 'failed':
      return { text: `✖ Failed after ${duration}: ${run.error?.message ?? 'unknown error'}`, color: 'red' };
    case null:
      return { text: `■ Stopped after ${duration} (the run did not report its end)`, color: 'yellow' };
  }
}

/** Tokens and cost per agent, then the total. */
export function usageSummary(run: RunState): string[] {
  const lines = run.agents.map((a) => {
    const u = a.usage;
    const reasoning = u.reasoningTokens > 0 ? `, ${u.reasoningTokens} reasoning` : '';
    const cached = u.cachedInputTokens > 0 ? `, ${u.cachedInputTokens} cached` : '';
    return `  ${a.agentId}: ${u.inputTokens} in / ${u.outputTokens} out tokens${reasoning}${cached} — ${formatCost(run, [a.agentId])}`;
  });
  const total = totalUsage(run);
  lines.push(`  total: ${total.inputTokens} in / ${total.outputTokens} out tokens — ${formatCost(run)}`);
  return lines;
}

/**
 * What stays in the terminal after the run: the question, one line per agent, the final answer in
 * full, how the run ended, and tokens and cost.
 */
export function FinalScreen({ view, columns, now }: FinalScreenProps) {
  const run = view.run;
  const width = Math.max(20, columns);
  const question = wrapText(run.question.trim(), width - 10);
  const shownQuestion = question.slice(0, 3).join(' ') + (question.length > 3 ? ' …' : '');
  const outcome = outcomeLine(run, now);
  const idWidth = Math.max(...run.agents.map((a) => textWidth(`${a.agentId} (${a.anonymousId})`)), 5);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="wrap">
        <Text bold color="cyan">
          massgen
        </Text>
        <Text dimColor> ▸ </Text>
        <Text bold>{shownQuestion}</Text>
      </Text>
      {agentRows(view).map(({ agent, badge, index }) => (
        <Text key={agent.agentId} wrap="truncate-end">
          {'  '}
          <Text color={agentColor(index)} bold>
            {padEndTo(`${agent.agentId} (${agent.anonymousId})`, idWidth)}
          </Text>
          {'  '}
          <Text color={BADGE_COLORS[badge.kind]}>{badge.text}</Text>
          {run.winnerId === agent.agentId && run.status === 'completed' ? (
            <Text color="green" bold>
              {' ★ winner'}
            </Text>
          ) : null}
          <Text dimColor>
            {'  · '}
            {fitLine(
              `${agent.answerCount} answer${agent.answerCount === 1 ? '' : 's'}` +
                (agent.latestLabel ? ` (latest ${agent.latestLabel})` : '') +
                (agent.restarts > 0 ? ` · ${agent.restarts} restart${agent.restarts === 1 ? '' : 's'}` : '') +
                ` · ${formatTokens(tokensOf(agent.usage))} tok · ${agent.backendType}/${agent.model}`,
              width,
            )}
          </Text>
        </Text>
      ))}
      {view.final ? <FinalAnswer final={view.final} width={width} /> : null}
      <Text color={outcome.color} bold wrap="wrap">
        {outcome.text}
      </Text>
      {usageSummary(run).map((text, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {text}
        </Text>
      ))}
    </Box>
  );
}

/** The final screen as a string, for writing to the terminal once the live view is gone. */
export function renderFinalScreen(view: ViewState, columns: number, now: number = Date.now()): string {
  return renderToString(<FinalScreen view={view} columns={columns} now={now} />, {
    columns: Math.max(20, columns),
  });
}
