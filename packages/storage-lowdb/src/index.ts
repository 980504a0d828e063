export { openLowdbStorage, type OpenLowdbStorageOptions } from "./open-lowdb-storage.js";
export { CONNECTIONS_FILE } from "./file-format.js";
export { WRITE_PROBE_FILE } from "./write-probe.js";
export { HEALTH_FILE } from "./health-file.js";
export { TOKENS_FILE } from "./tokens-file.js";
export { GRANTS_FILE } from "./grants-file.js";
