import { Box, Text } from 'ink';
import type { RunState } from '../../types/run-state.js';
import { totalUsage } from '../../types/run-state.js';
import { fitLine, formatCost, formatElapsed, formatTokens, tokensOf } from '../format.js';
import { tallyText } from '../lines.js';

export interface HeaderProps {
  run: RunState;
  columns: number;
  /** The current time (ms since the epoch), for the elapsed time of a running run. */
  now: number;
  cancelRequested: boolean;
}

function phaseText(run: RunState, cancelRequested: boolean): { text: string; color: string } {
  if (run.phase === 'finished') {
    const color = run.status === 'completed' ? 'green' : run.status === 'cancelled' ? 'yellow' : 'red';
    return { text: run.status ?? 'finished', color };
  }
  if (cancelRequested) return { text: 'cancelling…', color: 'yellow' };
  if (run.phase === 'presenting') return { text: 'presenting', color: 'cyan' };
  if (run.coordinationEnd !== null)
    return { text: `coordination done (${run.coordinationEnd})`, color: 'cyan' };
  return { text: run.phase, color: 'cyan' };
}

/** Two lines: the question, then elapsed time, phase, vote tally, tokens and cost. */
export function Header({ run, columns, now, cancelRequested }: HeaderProps) {
  const elapsed = run.startedAt === null ? 0 : (run.finishedAt ?? now) - run.startedAt;
  const phase = phaseText(run, cancelRequested);
  const tally = tallyText(run);
  const question = run.question === '' ? 'starting…' : run.question;
  return (
    <Box flexDirection="column" width={columns}>
      <Text wrap="truncate-end">
        <Text bold color="cyan">
          massgen
        </Text>
        <Text dimColor> ▸ </Text>
        <Text bold>{fitLine(question, Math.max(10, columns - 10))}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text>⏱ {formatElapsed(elapsed)}</Text>
        <Text dimColor> · </Text>
        <Text color={phase.color}>{phase.text}</Text>
        {run.agents.length > 1 ? (
          <>
            <Text dimColor> · </Text>
            <Text color="magenta">votes: {tally ?? 'none yet'}</Text>
          </>
        ) : null}
        <Text dimColor> · </Text>
        <Text>{formatTokens(tokensOf(totalUsage(run)))} tokens</Text>
        <Text dimColor> · </Text>
        <Text>{formatCost(run)}</Text>
      </Text>
    </Box>
  );
}
