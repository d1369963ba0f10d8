// One `sealkit contract publish DIR -q` in a process of its own, as a user
// runs it, reporting what that process cost (its own peak RSS and CPU):
//   node dist/bench/ledger-cli-child.js now DIR     → the CLI bundle's main, exactly as bin/sealkit.js runs it
//   node dist/bench/ledger-cli-child.js before DIR  → the same publication the way it ran before the
//     template: initdb for a new ledger, PGlite's default settings, V8's optimizing tier for PGlite
// Prints {"exit","maxRssMb","cpuMs"} on stdout.
import type { IdentifiedCandidate } from '../src/contracts/index.js';
import { peakRssKiB } from './peak-rss.js';

const [mode, dir = ''] = process.argv.slice(2);

async function before(): Promise<number> {
  // Loaded here, not at the top: the `now` process loads the CLI bundle alone, as bin/sealkit.js does.
  const { ledgerLocation, openContractProject, openLedger, runContractPublication } = await import(
    '../src/contracts/index.js'
  );
  const project = await openContractProject(dir);
  project.requireValid();
  // The resources the CLI publishes: every versioned one but dashboards.
  const ids = project.outcomes.flatMap((outcome) =>
    outcome.kind !== 'Dashboard' && outcome.version !== null && outcome.id !== null ? [outcome.id] : [],
  );
  const candidates: IdentifiedCandidate[] = ids.map((id) => {
    const { bytes, digest } = project.project(id);
    return { id, bytes, digest };
  });
  const connection = await openLedger(ledgerLocation(undefined, dir, {}), {
    create: true,
    start: { dataDir: 'initdb', settings: 'pglite' },
  });
  try {
    const run = await runContractPublication(connection, candidates, { approval: [], dryRun: false });
    return run.plan.refused > 0 ? 2 : 0;
  } finally {
    await connection.close();
  }
}

async function now(): Promise<number> {
  // The bundle `bin/sealkit.js` loads (scripts/bundle.mjs); its main is the one of src/cli/main.ts.
  const bundle = new URL('../bundle/sealkit.js', import.meta.url).href;
  const { main } = (await import(bundle)) as typeof import('../src/cli/main.js');
  // -q prints nothing on stdout, which is left to the figures below.
  return main(['contract', 'publish', dir, '-q'], {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  });
}

const exit = mode === 'before' ? await before() : await now();
const usage = process.resourceUsage();
process.stdout.write(
  `${JSON.stringify({ exit, maxRssMb: peakRssKiB() / 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 })}\n`,
);
