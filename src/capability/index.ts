// The interface between a run and its capabilities (docs/architecture.md, "How to add a capability").
export {
  withPromptSection,
  type AgentEquipment,
  type AgentPlace,
  type Capability,
  type CapabilityChecks,
  type CapabilityModule,
  type CapabilityOptions,
  type CapabilityParts,
  type CapabilityProblems,
  type ConfigPlace,
  type RunContext,
  type RunEnd,
} from './capability.js';
