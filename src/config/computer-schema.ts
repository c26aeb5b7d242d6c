import { z } from 'zod';

/**
 * `tools: { computer: … }`: a virtual desktop per agent (an Xvfb display of its own, driven with
 * xdotool) and the computer tools over it (docs/computer-use.md).
 */
export const ComputerConfigSchema = z.strictObject({
  /** The display server; only `xvfb` (a virtual framebuffer, nothing shown on screen) for now. */
  display: z.literal('xvfb').default('xvfb'),
  /** Screen size in pixels. */
  width: z.int().min(64).max(7680).default(1024),
  height: z.int().min(64).max(4320).default(768),
  /**
   * `auto`: an agent whose backend and model have the vendor's own computer-use tool (Claude) gets
   * that (one `computer` tool, every action answered with a screenshot the model sees); others get
   * the generic `computer_*` tools. `false`: the generic tools for every agent.
   */
  native: z.union([z.literal('auto'), z.literal(false)]).default('auto'),
});

export type ComputerConfig = z.output<typeof ComputerConfigSchema>;
