import type { AskOthersDesk, PeerModel } from '../ask-others/index.js';
import type { Capability } from '../capability/index.js';
import type { MassGenConfig } from '../config/index.js';

/**
 * `coordination.broadcast` (docs/ask-others.md): the run's `ask_others` desk, loaded only when the
 * config asks for it, and the capability that gives every agent its tool and shows the desk the run's
 * events. The desk stays with the app: the human answers through the prepared run.
 */
export async function askOthersSetup(
  config: MassGenConfig,
  peers: () => readonly PeerModel[],
): Promise<{ desk: AskOthersDesk; capability: Capability } | null> {
  const coordination = config.orchestrator.coordination;
  if (!coordination.broadcast) return null;
  const askOthers = await import('../ask-others/index.js');
  const desk = new askOthers.AskOthersDesk({
    mode: coordination.broadcast,
    timeoutMs: coordination.broadcast_timeout * 1000,
    maxPerAgent: coordination.max_broadcasts_per_agent,
    agentIds: config.agents.map((a) => a.id),
    respond: askOthers.peerResponder(peers),
  });
  const capability: Capability = {
    name: 'ask_others',
    uses: (_config, options) => !options.agents,
    load: async () => ({
      prepare: async () => ({
        equip: ({ agent }) => ({ providers: [desk.toolProvider(agent.id)] }),
        onEvent: (event) => desk.observe(event),
      }),
    }),
  };
  return { desk, capability };
}
