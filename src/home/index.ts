// Where an agent's files live and the stores kept there: the known-agents cache and the task ledger.

export { resolveHome, homePaths, type Home, type HomeOptions } from './home.js';
export { AgentDirectory, offers, CACHE_KEY, type KnownAgent, type CacheInfo } from './known-agents.js';
export { FileTaskLedger, type RecordOptions, type ListFilter } from './task-ledger.js';
export {
  applyMessage,
  isTaskMessage,
  taskIdOf,
  TASK_MESSAGE_TYPES,
  type TaskRecord,
  type HistoryEntry,
  type Direction,
  type Applied,
} from './task-record.js';
export { writeFileAtomic, createFileAtomic, readJsonFile } from './atomic-file.js';
export { encodeName, decodeName } from './file-names.js';
