// One scaffold in a process of its own, importing only the scaffold domain
// (not the whole CLI), or many in one process for the in-process figure:
//   node dist/bench/scaffold-child.js once OPTIONS_JSON        → {"ms"}
//   node dist/bench/scaffold-child.js loop OPTIONS_JSON N TEMPLATE → {"medianMs","minMs"}
import { cpSync } from 'node:fs';
import { scaffold } from '../src/scaffold/index.js';

const [mode, optionsJson = '{}', count = '0', template = ''] = process.argv.slice(2);
const options = JSON.parse(optionsJson) as Parameters<typeof scaffold>[0] & { now: string };

async function once(workspace: string): Promise<number> {
  const start = process.hrtime.bigint();
  const result = await scaffold({ ...options, workspace, now: new Date(options.now) });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 'published') throw new Error('the benchmark scaffold did not publish');
  return ms;
}

if (mode === 'once') {
  process.stdout.write(`${JSON.stringify({ ms: await once(options.workspace) })}\n`);
} else {
  const times: number[] = [];
  for (let i = 0; i < Number(count); i += 1) {
    const workspace = `${options.workspace}-${i}`;
    cpSync(template, workspace, { recursive: true });
    times.push(await once(workspace));
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({ medianMs: times[times.length >> 1] ?? Number.NaN, minMs: times[0] ?? Number.NaN })}\n`,
  );
}
