/**
 * Written into `.distributor.json` as the diagnostic `distributor_version`; it
 * never takes part in comparisons. A test keeps it equal to package.json.
 */
export const DISTRIBUTOR_VERSION = '0.1.0';
