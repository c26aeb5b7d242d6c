export {
  findInstructionFiles,
  instructionsBlock,
  INSTRUCTION_FILES,
  MAX_INSTRUCTION_FILE_BYTES,
  MAX_INSTRUCTIONS_CHARS,
  type InstructionFile,
} from './instruction-files.js';
