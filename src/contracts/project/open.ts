import { cachingSqlParser, type SqlParseAnswers } from '../sql/parse-cache.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { ContractProject, type ProjectFile, type ProjectOptions } from './contract-project.js';
import { type ProjectLimits, readContractProjectFiles } from './load.js';
import { sqlParseCacheStore } from './parse-cache-store.js';

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

/** A project opened with the parse cache, and the way to keep this run's answers. */
export interface CachedContractProject {
  readonly project: ContractProject;
  /**
   * Writes this run's answers to the cache when they differ from what was
   * read and the project is valid; call it once the command has succeeded,
   * so a refused command writes nothing. `.sealkit/` is created only when
   * `createSealkit` (a publication to the embedded ledger creates it anyway).
   */
  keepParses(createSealkit: boolean): void;
}

/**
 * `openContractProject` with DuckDB's answers kept in
 * `<path>/.sealkit/cache/` between runs (docs/contracts.md#the-sql-parse-cache):
 * a project whose SQL has not changed never loads DuckDB.
 */
export async function openContractProjectCached(
  path: string,
  options: { readonly limits?: ProjectLimits } = {},
): Promise<CachedContractProject> {
  const files = readContractProjectFiles(path, options.limits);
  const store = sqlParseCacheStore(path);
  if (store === undefined) {
    return {
      project: await contractProjectFromFiles(files, undefined, { root: path }),
      keepParses: () => {},
    };
  }
  const read = async (answers: SqlParseAnswers) => {
    const cached = cachingSqlParser(answers, lazyDuckDbParser());
    try {
      return { cached, project: await ContractProject.fromFiles(files, cached.parser, { root: path }) };
    } finally {
      cached.parser.close();
    }
  };
  let { cached, project } = await read(store.read());
  // A refusal is never the cache's: a project refused with cached answers is
  // read again with DuckDB's own, and that reading is the answer (and what
  // the cache is rewritten with, when it is valid).
  if (!project.valid && cached.answeredFromCache()) ({ cached, project } = await read(new Map()));
  return {
    project,
    keepParses(createSealkit) {
      if (project.valid && cached.changed()) store.write(cached.answersUsed(), createSealkit);
    },
  };
}

/** The same from files already in memory. */
export async function contractProjectFromFiles(
  files: readonly ProjectFile[],
  parser?: SqlParser,
  options: ProjectOptions = {},
): Promise<ContractProject> {
  if (parser !== undefined) return ContractProject.fromFiles(files, parser, options);
  const lazy = lazyDuckDbParser();
  try {
    return await ContractProject.fromFiles(files, lazy, options);
  } finally {
    lazy.close();
  }
}

/** DuckDB's parser, loaded only when some text has to be parsed. */
function lazyDuckDbParser(): SqlParser {
  let opened: SqlParser | undefined;
  return {
    async serialize(texts) {
      opened ??= await createDuckDbSqlParser();
      return opened.serialize(texts);
    },
    close() {
      opened?.close();
    },
  };
}
