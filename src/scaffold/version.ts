/**
 * sealkit's version, written into `.scaffold-manifest.json` as the
 * generator's version (which release generated the files). A test keeps it
 * equal to package.json, so a release bump shows in the golden manifests.
 */
export const SCAFFOLD_GENERATOR_VERSION = '0.1.0';
