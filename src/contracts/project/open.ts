import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { ContractProject, type ProjectFile, type ProjectOptions } from './contract-project.js';
import { type ProjectLimits, readContractProjectFiles } from './load.js';

export interface OpenOptions {
  /** A parser to reuse (e.g. across many projects); otherwise one is opened and closed here. */
  readonly parser?: SqlParser;
  readonly limits?: ProjectLimits;
}

/**
 * Reads, validates and projects a contract project folder. Refusals name
 * each file as `path` joined with its path inside the project, so a relative
 * folder given on the command line stays relative.
 */
export async function openContractProject(path: string, options: OpenOptions = {}): Promise<ContractProject> {
  const files = readContractProjectFiles(path, options.limits);
  return contractProjectFromFiles(files, options.parser, { root: path });
}

/** The same from files already in memory. */
export async function contractProjectFromFiles(
  files: readonly ProjectFile[],
  parser?: SqlParser,
  options: ProjectOptions = {},
): Promise<ContractProject> {
  if (parser !== undefined) return ContractProject.fromFiles(files, parser, options);
  // The parser is loaded only when some model has SQL to parse.
  let opened: SqlParser | undefined;
  const lazy: SqlParser = {
    async serialize(texts) {
      opened ??= await createDuckDbSqlParser();
      return opened.serialize(texts);
    },
    close() {
      opened?.close();
    },
  };
  try {
    return await ContractProject.fromFiles(files, lazy, options);
  } finally {
    lazy.close();
  }
}
