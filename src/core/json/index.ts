export { positionOf as textPositionOf } from './grammar.js';
export { canonicalize, canonicalizeToBytes } from './jcs.js';
export { parseStrict } from './parse.js';
export { pyDumps } from './pydumps.js';
export { type JsonRefusalCode, refuseJson } from './refusals.js';
export { MAX_SERIAL_DEPTH } from './serial.js';
export {
  DEFAULT_JSON_LIMITS,
  isJsonObject,
  type JsonArray,
  JsonFloat,
  type JsonLimits,
  type JsonObject,
  type JsonValue,
} from './value.js';
