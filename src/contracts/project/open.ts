import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { ContractProject, type ProjectFile } from './contract-project.js';
import { type ProjectLimits, readContractProjectFiles } from './load.js';

export interface OpenOptions {
  /** A parser to reuse (e.g. across many projects); otherwise one is opened and closed here. */
  readonly parser?: SqlParser;
  readonly limits?: ProjectLimits;
}

/** Reads, validates and projects a contract project folder. */
export async function openContractProject(path: string, options: OpenOptions = {}): Promise<ContractProject> {
  const files = readContractProjectFiles(path, options.limits);
  return contractProjectFromFiles(files, options.parser);
}

/** The same from files already in memory. */
export async function contractProjectFromFiles(
  files: readonly ProjectFile[],
  parser?: SqlParser,
): Promise<ContractProject> {
  if (parser !== undefined) return ContractProject.fromFiles(files, parser);
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
    return await ContractProject.fromFiles(files, lazy);
  } finally {
    lazy.close();
  }
}
