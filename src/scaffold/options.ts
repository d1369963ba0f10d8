import { isScaffoldFaults } from './faults.js';
import { refuseScaffold } from './refusals.js';

const STRING_OPTIONS = ['mappingFile', 'inventoryFile', 'runManifestFile', 'sourceBindingId'] as const;
const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'edition',
  'workspace',
  'sourceId',
  ...STRING_OPTIONS,
  'maxEvidenceAge',
  'dryRun',
  'show',
  'now',
  'signal',
  'onResult',
  'faults',
]);

/**
 * The library boundary, as strict as the command line's: an unknown key
 * (`update`, `force`, a misspelling) or a value of the wrong type is
 * option_invalid, never ignored. The edition, source id and evidence values
 * are checked by their own rules afterwards.
 */
export function checkOptionShape(options: object): void {
  const record = options as Record<string, unknown>;
  const ok =
    Object.keys(record).every((key) => KNOWN_OPTIONS.has(key)) &&
    typeof record.workspace === 'string' &&
    STRING_OPTIONS.every((key) => record[key] === undefined || typeof record[key] === 'string') &&
    (record.maxEvidenceAge === undefined || typeof record.maxEvidenceAge === 'number') &&
    (record.dryRun === undefined || typeof record.dryRun === 'boolean') &&
    (record.show === undefined || typeof record.show === 'boolean') &&
    (record.now === undefined || record.now instanceof Date) &&
    (record.signal === undefined || record.signal instanceof AbortSignal) &&
    (record.onResult === undefined || typeof record.onResult === 'function') &&
    (record.faults === undefined || isScaffoldFaults(record.faults));
  if (!ok) throw refuseScaffold('option_invalid');
}
