import { Text } from 'ink';
import type { UiMode } from '../view-state.js';

export interface FooterProps {
  mode: UiMode;
  agentCount: number;
  cancelRequested: boolean;
  finished: boolean;
}

/** One line of key hints. */
export function Footer({ mode, agentCount, cancelRequested, finished }: FooterProps) {
  const digits = agentCount <= 1 ? '1' : `1-${Math.min(9, agentCount)}`;
  const hints = [
    ...(mode === 'panels' ? [] : ['Esc back', '↑↓ scroll']),
    ...(mode === 'agent' && agentCount > 1 ? ['←→ agent'] : []),
    `${digits} transcript`,
    'r timeline',
    'v votes',
  ];
  const quit = finished
    ? null
    : cancelRequested
      ? 'cancelling… (waiting for the agents to stop)'
      : 'q cancel';
  return (
    <Text wrap="truncate-end" dimColor>
      {hints.join('  ·  ')}
      {quit ? '  ·  ' : ''}
      {quit ? <Text color={cancelRequested ? 'yellow' : undefined}>{quit}</Text> : null}
    </Text>
  );
}
