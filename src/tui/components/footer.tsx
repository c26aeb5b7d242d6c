import { Text } from 'ink';
import { fitStart, textWidth, truncate } from '../../util/text.js';
import { sanitize } from '../format.js';
import type { SteeringAbility } from '../steering-keys.js';
import type { SteeringUi } from '../ui-state.js';
import type { UiMode } from '../view-state.js';

export interface FooterProps {
  mode: UiMode;
  agentCount: number;
  cancelRequested: boolean;
  finished: boolean;
  /** The terminal's width: the hints that do not fit are left out, least needed first. */
  columns: number;
  /** Which steering keys work now (none without someone to carry them out). */
  ability?: SteeringAbility;
  steering?: SteeringUi;
  /** The agent whose transcript is open (`m` writes to it), if any. */
  selectedAgentId?: string | null;
}

const SEPARATOR = ' · ';

/**
 * The key hints that fit `columns`, in screen order. Each hint has a rank: when they do not all fit,
 * the least needed go first (navigation before steering, `q cancel` never).
 */
export function footerHints(props: FooterProps): string[] {
  const { mode, agentCount, ability, selectedAgentId } = props;
  const digits = agentCount <= 1 ? '1' : `1-${Math.min(9, agentCount)}`;
  const target = mode === 'agent' && selectedAgentId ? ` ${selectedAgentId}` : '';
  // [hint, rank]: a higher rank stays longer.
  const hints: [string, number][] = [
    ...(mode === 'panels'
      ? []
      : ([
          ['Esc back', 6],
          ['↑↓ scroll', 3],
        ] as [string, number][])),
    ...(mode === 'agent' && agentCount > 1 ? ([['←→ agent', 2]] as [string, number][]) : []),
    [`${digits} transcript`, 5],
    ['r timeline', 4],
    ['v votes', 1],
    ...(ability?.canMessage ? ([[`m message${target}`, 8]] as [string, number][]) : []),
    ...(ability?.canAnswerNow ? ([['a answer now', 7]] as [string, number][]) : []),
  ];
  const quit = props.finished ? '' : props.cancelRequested ? '' : 'q cancel';
  const room = props.columns - (quit ? textWidth(quit) + SEPARATOR.length : 0);
  const kept = [...hints];
  const width = () => textWidth(kept.map(([h]) => h).join(SEPARATOR));
  while (kept.length > 0 && width() > room) {
    const lowest = kept.reduce((min, h) => (h[1] < min[1] ? h : min));
    kept.splice(kept.indexOf(lowest), 1);
  }
  return [...kept.map(([h]) => h), ...(quit ? [quit] : [])];
}

/** One line: the message being typed, the "answer now" question, what the last one came to, or key hints. */
export function Footer(props: FooterProps) {
  const { columns, steering, cancelRequested } = props;
  const width = Math.max(20, columns);
  if (steering?.input) {
    const to = steering.input.target ?? 'every agent';
    const head = `✉ to ${to} › `;
    const tail = '▏ Enter send · Esc cancel';
    const room = Math.max(1, width - textWidth(head) - textWidth(tail));
    const text = sanitize(steering.input.text);
    // The end of a long message shows: that is where the typing is.
    const shown = textWidth(text) <= room ? text : `…${lastColumns(text, room - 1)}`;
    return (
      <Text wrap="truncate-end">
        <Text color="cyan" bold>
          {truncate(head, width)}
        </Text>
        {shown}
        <Text dimColor>{tail}</Text>
      </Text>
    );
  }
  if (steering?.confirmAnswerNow) {
    return (
      <Text wrap="truncate-end" color="yellow" bold>
        {truncate('Answer now? The best answer so far is presented. y yes · n no', width)}
      </Text>
    );
  }
  if (steering?.notice) {
    return (
      <Text wrap="truncate-end" color={steering.notice.ok ? 'green' : 'red'}>
        {truncate(sanitize(steering.notice.text), width)}
      </Text>
    );
  }
  const hints = footerHints({ ...props, columns: width });
  const cancelling = !props.finished && cancelRequested;
  return (
    <Text wrap="truncate-end" dimColor>
      {truncate(hints.join(SEPARATOR), width)}
      {cancelling ? (
        <Text color="yellow">
          {truncate(
            `${hints.length > 0 ? SEPARATOR : ''}cancelling… (waiting for the agents to stop)`,
            width,
          )}
        </Text>
      ) : null}
    </Text>
  );
}

/** The last `columns` columns of `text`. */
function lastColumns(text: string, columns: number): string {
  const chars = Array.from(text);
  let start = chars.length;
  let used = 0;
  while (start > 0) {
    const w = textWidth(chars[start - 1] ?? '');
    if (used + w > columns) break;
    used += w;
    start--;
  }
  return fitStart(chars.slice(start).join(''), columns);
}
