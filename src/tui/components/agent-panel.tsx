import { memo } from 'react';
import { Box, Text } from 'ink';
import type { AgentState } from '../../types/run-state.js';
import { fitLine, formatTokens, tokensOf } from '../format.js';
import { formatAgentsCost } from '../../util/text.js';
import { panelBody, panelStatusLine, type StyledLine } from '../lines.js';
import type { AgentView, BadgeKind } from '../view-state.js';
import { StyledLines } from './styled-lines.js';

/**
 * `full`: a bordered panel of its own column (side by side); `stacked`: a bordered full-width panel
 * with a denser header; `row`: one line, for many agents in a short terminal.
 */
export type PanelVariant = 'full' | 'stacked' | 'row';

export interface AgentPanelProps {
  agent: AgentState;
  view: AgentView;
  badgeKind: BadgeKind;
  badgeText: string;
  /** The content of the agent's latest answer, or null. */
  latestAnswer: string | null;
  /** Colour of the agent's name. */
  color: string;
  isWinner: boolean;
  width: number;
  /** Rows the panel takes, borders included. */
  height: number;
  variant: PanelVariant;
}

export const BADGE_COLORS: Record<BadgeKind, string> = {
  waiting: 'gray',
  thinking: 'yellow',
  answering: 'cyan',
  voting: 'magenta',
  updated: 'blue',
  retrying: 'yellow',
  answered: 'green',
  voted: 'magenta',
  'vote-reset': 'gray',
  failed: 'red',
  dropped: 'red',
  presenting: 'cyan',
  done: 'green',
  stopped: 'gray',
};

const BADGE_SYMBOLS: Record<BadgeKind, string> = {
  waiting: '○',
  thinking: '●',
  answering: '✎',
  voting: '◆',
  updated: '↻',
  retrying: '…',
  answered: '✔',
  voted: '◆',
  'vote-reset': '◇',
  failed: '✖',
  dropped: '✖',
  presenting: '★',
  done: '★',
  stopped: '■',
};

/** Rows of a panel that are not text or the status line: borders and header lines. */
export const panelChrome = (variant: PanelVariant): number =>
  variant === 'row' ? 0 : variant === 'full' ? 6 : 4;

function borderColor(kind: BadgeKind, isWinner: boolean): string {
  if (isWinner) return 'green';
  if (kind === 'failed' || kind === 'dropped') return 'red';
  if (kind === 'presenting') return 'cyan';
  return 'gray';
}

function usageText(agent: AgentState): string {
  return `${formatTokens(tokensOf(agent.usage))} tok · ${formatAgentsCost([agent])}`;
}

function Badge({ kind, text }: { kind: BadgeKind; text: string }) {
  return (
    <Text color={BADGE_COLORS[kind]} bold={kind !== 'waiting' && kind !== 'stopped'}>
      {BADGE_SYMBOLS[kind]} {text}
    </Text>
  );
}

/** The badge, answer label and restart count, e.g. `◆ voted → agent2.1  agent1.1  ↻1`. */
function StatusParts({
  agent,
  badgeKind,
  badgeText,
}: Pick<AgentPanelProps, 'agent' | 'badgeKind' | 'badgeText'>) {
  return (
    <>
      <Badge kind={badgeKind} text={badgeText} />
      {agent.latestLabel ? <Text bold>{`  ${agent.latestLabel}`}</Text> : null}
      {agent.restarts > 0 ? <Text color="yellow">{`  ↻${agent.restarts}`}</Text> : null}
    </>
  );
}

function AgentPanelImpl(props: AgentPanelProps) {
  const { agent, view, color, isWinner, width, height, variant, latestAnswer } = props;
  const winner = isWinner ? (
    <Text color="green" bold>
      {'  ★ winner'}
    </Text>
  ) : null;

  if (variant === 'row') {
    const body = panelBody(agent, view, latestAnswer, 1000, 1)[0];
    return (
      <Box width={width} height={1}>
        <Text wrap="truncate-end">
          <Text bold color={color}>
            {agent.agentId}
          </Text>
          {'  '}
          <StatusParts {...props} />
          <Text dimColor>{`  ${usageText(agent)}`}</Text>
          {body ? <Text dimColor>{`  │ ${body.text}`}</Text> : null}
        </Text>
      </Box>
    );
  }

  const inner = Math.max(4, width - 4);
  const status = panelStatusLine(view, inner);
  const bodyRows = Math.max(0, height - panelChrome(variant) - (status ? 1 : 0));
  const body: StyledLine[] = panelBody(agent, view, latestAnswer, inner, bodyRows);
  const model = `${agent.backendType}/${agent.model}`;

  return (
    <Box
      flexDirection="column"
      width={width}
      height={height}
      borderStyle="round"
      borderColor={borderColor(props.badgeKind, isWinner)}
      paddingX={1}
      overflow="hidden"
    >
      {variant === 'full' ? (
        <>
          <Text wrap="truncate-end">
            <Text bold color={color}>
              {agent.agentId}
            </Text>
            <Text dimColor>{` (${agent.anonymousId})`}</Text>
            {winner}
          </Text>
          <Text wrap="truncate-end" dimColor>
            {fitLine(model, inner)}
          </Text>
          <Text wrap="truncate-end">
            <StatusParts {...props} />
          </Text>
          <Text wrap="truncate-end" dimColor>
            {usageText(agent)}
          </Text>
        </>
      ) : (
        <>
          <Text wrap="truncate-end">
            <Text bold color={color}>
              {agent.agentId}
            </Text>
            <Text dimColor>{` (${agent.anonymousId}) · ${model}`}</Text>
            {winner}
          </Text>
          <Text wrap="truncate-end">
            <StatusParts {...props} />
            <Text dimColor>{`  · ${usageText(agent)}`}</Text>
          </Text>
        </>
      )}
      <Box flexDirection="column" flexGrow={1}>
        <StyledLines lines={body} />
      </Box>
      {status ? <StyledLines lines={[status]} /> : null}
    </Box>
  );
}

/** One agent: id, model, status badge, answer label, restarts, usage, streamed text and tool activity. */
export const AgentPanel = memo(AgentPanelImpl);
