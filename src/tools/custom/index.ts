export { customToolProvider, formatToolOutput } from './custom-tool-provider.js';
export {
  loadCustomTools,
  type CustomToolSettings,
  type LoadCustomToolsOptions,
} from './load-custom-tools.js';
export { fixedArguments, withFixedArguments, type FixedArguments } from './fixed-arguments.js';
export { importToolModule, type ToolModule } from './import-tool-module.js';
