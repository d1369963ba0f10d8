import { z } from 'zod';
import { MAX_DECIMAL_PRECISION, SIMPLE_TYPE_NAMES } from '../authoring/physical-type.js';

/** The typed form of a physical type inside projections. */
export const PhysicalTypeSchema = z.union([
  z.strictObject({ name: z.enum(SIMPLE_TYPE_NAMES) }),
  z.strictObject({
    name: z.literal('decimal'),
    precision: z.number().int().min(1).max(MAX_DECIMAL_PRECISION),
    scale: z.number().int().min(0).max(MAX_DECIMAL_PRECISION),
  }),
]);
