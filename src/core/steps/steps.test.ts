import { describe, expect, it } from 'vitest';
import { FsError } from '../fs/index.js';
import { isStepFaults, parseStepFaults, Steps } from './steps.js';

const POINTS = ['after_a', 'after_b'] as const;

class Stopped extends Error {}

describe('parseStepFaults', () => {
  it('reads comma-separated fail@POINT[#N] and pause@POINT[#N] over the points given', () => {
    expect(parseStepFaults(' pause@after_a , fail@after_b#3,', POINTS)).toEqual([
      { action: 'pause', point: 'after_a', nth: undefined },
      { action: 'fail', point: 'after_b', nth: 3 },
    ]);
  });

  it.each(['pause@after_c', 'stop@after_a', 'pause@after_a#0', 'pause@after_a=EIO', 'after_a'])(
    'cannot read %s',
    (spec) => {
      expect(parseStepFaults(spec, POINTS)).toBeUndefined();
    },
  );

  it('checks the shape of a faults option', () => {
    expect(isStepFaults({ rules: [{ action: 'pause', point: 'after_a', nth: 2 }] }, POINTS)).toBe(true);
    expect(isStepFaults({ rules: [{ action: 'pause', point: 'after_c' }] }, POINTS)).toBe(false);
    expect(isStepFaults({ rules: [], extra: 1 }, POINTS)).toBe(false);
    expect(isStepFaults({ rules: [{ action: 'fail', point: 'after_a', nth: 0 }] }, POINTS)).toBe(false);
  });
});

describe('Steps', () => {
  it('stops an aborted run at the next boundary with the refusal it was given', async () => {
    const controller = new AbortController();
    const steps = new Steps<(typeof POINTS)[number]>({
      signal: controller.signal,
      interrupted: () => new Stopped(),
    });
    await steps.at('after_a');
    controller.abort();
    await expect(steps.at('after_b')).rejects.toBeInstanceOf(Stopped);
  });

  it('fails the Nth time a point is reached, as an I/O error would', async () => {
    const steps = new Steps<(typeof POINTS)[number]>({
      faults: { rules: [{ action: 'fail', point: 'after_a', nth: 2 }] },
      interrupted: () => new Stopped(),
    });
    await steps.at('after_a');
    await steps.at('after_b');
    const failed = await steps.at('after_a').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(FsError);
    expect((failed as FsError).code).toBe('EIO');
  });

  it('waits at a pause until it is released, and stops there when the run is aborted meanwhile', async () => {
    const controller = new AbortController();
    const reached: string[] = [];
    let release = (): void => {};
    const steps = new Steps<(typeof POINTS)[number]>({
      signal: controller.signal,
      faults: {
        rules: [{ action: 'pause', point: 'after_a' }],
        pause: (point, nth) =>
          new Promise<void>((resolve) => {
            reached.push(`${point}#${nth}`);
            release = resolve;
          }),
      },
      interrupted: () => new Stopped(),
    });
    const first = steps.at('after_a');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reached).toEqual(['after_a#1']);
    release();
    await first;
    const second = steps.at('after_a');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reached).toEqual(['after_a#1', 'after_a#2']);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(Stopped);
  });
});
