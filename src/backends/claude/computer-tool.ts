import type { AnthropicProvider } from '@ai-sdk/anthropic';
import type { NativeToolFactory } from '../ai-sdk/native-tools.js';
import { claudeComputerVersion } from '../native-computer.js';

/**
 * Claude's own computer tool for a `computer` definition marked `native` (docs/computer-use.md):
 * `anthropic.tools.computer_*` in the version `model` takes, with the desktop's size; the SDK adds the
 * `anthropic-beta` header it needs. Undefined for a model without computer use (the definition then
 * goes as a function tool).
 */
export function claudeNativeTool(provider: AnthropicProvider, model: string): NativeToolFactory {
  const version = claudeComputerVersion(model);
  return (definition) => {
    if (definition.native?.kind !== 'computer' || version === null) return undefined;
    const { displayWidthPx, displayHeightPx } = definition.native;
    // The toolset has no display size (coordinates are the screenshots' pixels) and zooms by default:
    // the desktop has no zoom, so it is switched off.
    const tool =
      version === 'computerToolset_20260801'
        ? provider.tools.computerToolset_20260801({ configs: { zoom: { enabled: false } } })
        : provider.tools[version]({ displayWidthPx, displayHeightPx });
    // Always a provider tool (the factories build nothing else); the check narrows the SDK's union.
    if (tool.type !== 'provider') return undefined;
    return { type: 'provider', name: definition.name, id: tool.id, args: tool.args };
  };
}
