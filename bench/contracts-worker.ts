// The contracts benchmark's worker: DuckDB's API is asynchronous and the
// harness times synchronous operations, so the whole pipeline runs here and
// the main thread blocks on a shared flag until the answer is posted.
import { workerData } from 'node:worker_threads';
import {
  type ContractProject,
  contractProjectFromFiles,
  createDuckDbSqlParser,
  type ContractProjectFile as ProjectFile,
  type ContractSqlParser as SqlParser,
} from '../src/contracts/index.js';
import { generateContractProject } from './contracts-generate.js';
import { serveSyncRequests } from './sync-worker.js';

interface Setup {
  readonly resources: number;
  readonly seed: number;
}

export type Request = 'full' | 'cached' | 'duckdb';
export interface Answer {
  readonly projected: number;
  readonly checksum: string;
  readonly modelSql: number;
}

const { resources, seed } = workerData as Setup;
const files: ProjectFile[] = generateContractProject(resources, seed);
const parser: SqlParser = await createDuckDbSqlParser();
const modelSql: string[] = [];
let cached: SqlParser | undefined;

function projectAll(project: ContractProject): Answer {
  if (!project.valid) throw new Error('the benchmark project is not valid');
  let checksum = '';
  let projected = 0;
  for (const outcome of project.outcomes) {
    if (outcome.kind === 'Dashboard' || outcome.id === null) continue;
    const canonical = project.project(outcome.id);
    checksum =
      checksum === '' ? canonical.digest : `${checksum.slice(0, 16)}${canonical.digest.slice(7, 23)}`;
    projected += 1;
  }
  return { projected, checksum, modelSql: modelSql.length };
}

async function answer(request: Request): Promise<Answer> {
  if (request === 'duckdb') {
    const out = await parser.serialize(modelSql);
    return {
      projected: 0,
      checksum: String(out.filter((text) => text !== undefined).length),
      modelSql: modelSql.length,
    };
  }
  if (request === 'cached') {
    if (cached === undefined) throw new Error('run the full pipeline first');
    return projectAll(await contractProjectFromFiles(files, cached));
  }
  // Records the texts and answers the parser saw, for the DuckDB-only and cached variants.
  const seen = new Map<string, string | undefined>();
  const recording: SqlParser = {
    async serialize(texts) {
      const out = await parser.serialize(texts);
      texts.forEach((text, index) => {
        seen.set(text, out[index]);
      });
      return out;
    },
    close() {},
  };
  const project = await contractProjectFromFiles(files, recording);
  if (modelSql.length === 0) modelSql.push(...seen.keys());
  const result = projectAll(project);
  cached ??= { serialize: async (texts) => texts.map((text) => seen.get(text)), close() {} };
  return result;
}

serveSyncRequests(answer);
