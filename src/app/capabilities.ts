import { externalAgentsCapability, pythonToolsCapability } from '../bridge/capability.js';
import type { Capability } from '../capability/index.js';
import { hooksCapability } from '../hooks/capability.js';
import { memoryCapability } from '../memory/capability.js';
import { projectInstructionsCapability } from '../project-instructions/capability.js';
import { skillsCapability } from '../skills/capability.js';
import { browserCapability } from '../tools/browser/capability.js';
import { computerCapability } from '../tools/computer/capability.js';
import { libraryToolsCapability } from '../tools/custom/capability.js';
import { mediaGenerationCapability } from '../tools/media-generation/capability.js';
import { taskPlanCapability } from '../task-plan/capability.js';

/**
 * Subagents (docs/subagents.md): each is a whole run started through this layer, so their folder sits
 * above it and its module is imported only when a config enables them.
 */
const subagentsCapability: Capability = {
  name: 'subagents',
  uses: (config, options) =>
    config.orchestrator.coordination.enable_subagents &&
    config.orchestrator.coordination.max_subagent_depth >= 1 &&
    !options.agents,
  load: () => import('../subagents/subagents-capability.js'),
};

/**
 * The run's capabilities, in the order their parts are merged (docs/architecture.md, "How to add a
 * capability"): an agent's custom tools are the config's, then Python's, the library's and memory's;
 * `load_skill` comes first among its tools and the browser, desktop and media tools after its custom
 * ones; the skills list precedes the memories in its system prompt, and the project's instructions
 * end it; skills' warnings precede the external agents', and the hooks' follow the others'. Only the descriptors load here; each capability's module loads when a run uses it.
 */
export const builtInCapabilities: readonly Capability[] = [
  pythonToolsCapability,
  libraryToolsCapability,
  skillsCapability,
  memoryCapability,
  browserCapability,
  computerCapability,
  mediaGenerationCapability,
  externalAgentsCapability,
  subagentsCapability,
  taskPlanCapability,
  projectInstructionsCapability,
  hooksCapability,
];
