export {
  PythonHost,
  PythonError,
  PythonHostStoppedError,
  PYTHON_HOST_SCRIPT,
  type PythonFunctionDescription,
  type PythonHostOptions,
} from './python-host.js';
export { PythonAgent, toOpenAIMessages, type PythonAgentOptions } from './python-agent.js';
