export { type PathSegment, pointerOf } from './pointer.js';
export { readBoundedInput } from './read-bounded.js';
export {
  type ClosedRecord,
  type ExpectedKind,
  expectedText,
  keyAt,
  locateIssues,
  nodeAt,
  placeOf,
  type RecordIssue,
  type RecordProblem,
  type RecordShape,
  readClosedRecord,
} from './record.js';
export { type InputRefusalCode, refuseInput } from './refusals.js';
export { decodeUtf8Strict, type Utf8Decoding } from './utf8.js';
export {
  describeKind,
  duplicateKeyHint,
  entryOf,
  faultPlaceHint,
  type Position,
  plainOf,
  readStrictYaml,
  type StrictYamlOptions,
  type YamlEntry,
  type YamlFault,
  type YamlFaultPlace,
  type YamlMapNode,
  type YamlNode,
  type YamlPlain,
} from './yaml.js';
