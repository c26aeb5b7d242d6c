export { customToolProvider, formatToolOutput } from './custom-tool-provider.js';
export {
  loadCustomTools,
  type CustomToolSettings,
  type LoadCustomToolsOptions,
} from './load-custom-tools.js';
export { importToolModule, type ToolModule } from './import-tool-module.js';
