import { z } from 'zod';
import { isCalendarDate } from '../calendar.js';
import {
  NAME_PATTERN,
  REFERENCE_PATTERN,
  RESOURCE_ID_MAX,
  RESOURCE_ID_PATTERN,
  VERSION_PATTERN,
} from '../identifiers.js';
import { decimalWithinBounds, PHYSICAL_TYPE_PATTERN } from '../physical-type.js';

/**
 * Building blocks shared by the resource schemas. Every object is strict
 * (unknown keys refused) and every collection and text is bounded, so one
 * resource file cannot ask for unbounded work.
 */

export const ResourceId = z
  .string()
  .max(RESOURCE_ID_MAX)
  .regex(RESOURCE_ID_PATTERN)
  .describe('Stable authored identity: dot-separated lowercase ASCII segments, e.g. retail.source.orders.');

export const Name = z
  .string()
  .regex(NAME_PATTERN)
  .describe('Lowercase ASCII identifier: letters, digits and underscores, at most 63 characters.');

export const Reference = z
  .string()
  .max(RESOURCE_ID_MAX)
  .regex(REFERENCE_PATTERN)
  .describe('A resource of the project: its id (tried first) or its project-local name (fallback).');

/** A field name: no leading or trailing white space. */
export const FIELD_NAME_PATTERN = /^\S(?:.*\S)?$/;

/** A calendar date as written: `YYYY-MM-DD`; whether the day exists is a refinement. */
export const ISO_DATE_PATTERN = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/**
 * The refinements of the schemas (rules a pattern cannot say), each named,
 * so the schema step reports it at the value with its own advice
 * (docs/contracts.md#reading-an-error). A refinement runs only on a value
 * of the right shape: the pattern before it aborts, so one mistake is one
 * error.
 */
export const REFINEMENTS = {
  calendar_date: 'calendar_date',
  decimal_scale: 'decimal_scale',
  control_character: 'control_character',
} as const;
export type Refinement = keyof typeof REFINEMENTS;

/** Physical field names may be any Unicode text (warehouses allow quoted names); NFC is their identity. */
export const FieldName = z
  .string()
  .min(1)
  .max(128)
  .regex(FIELD_NAME_PATTERN)
  .describe('Physical field name: text without leading or trailing space; compared after NFC normalization.');

export const PhysicalTypeText = z
  .string()
  .regex(PHYSICAL_TYPE_PATTERN, { abort: true })
  .refine(decimalWithinBounds, { params: { refinement: REFINEMENTS.decimal_scale } })
  .describe(
    'Physical type: string, boolean, int8, int16, int32, int64, float32, float64, decimal(P,S) with P ≤ 38 and S ≤ P, date, time, timestamp, timestamp_tz, binary or json.',
  );

/**
 * The first control character of `text` (C0, DEL, C1) other than those in
 * `allowed`, as its index; undefined when there is none. Control characters
 * are invisible in an editor and in a rendered page, and rewrite a terminal
 * that prints them: prose is for people, so they are refused
 * (docs/contracts.md#authoring).
 */
export function controlCharacterAt(text: string, allowed: string): number | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if ((unit < 0x20 || (unit >= 0x7f && unit <= 0x9f)) && !allowed.includes(text.charAt(index)))
      return index;
  }
  return undefined;
}

/** What prose may hold of the control characters: tabs and line breaks. */
export const PROSE_CONTROLS = '\t\n';

export const Prose = z
  .string()
  .max(16_384, { abort: true })
  .refine((text) => controlCharacterAt(text, PROSE_CONTROLS) === undefined, {
    params: { refinement: REFINEMENTS.control_character, allowed: PROSE_CONTROLS },
  })
  .describe('Descriptive prose; not part of contract identity.');

/** One line of text for people (a label, a title): no control character at all. */
export const Line = z
  .string()
  .max(16_384, { abort: true })
  .refine((text) => controlCharacterAt(text, '') === undefined, {
    params: { refinement: REFINEMENTS.control_character, allowed: '' },
  })
  .describe('Descriptive prose; not part of contract identity.');

export const Tags = z
  .array(
    z
      .string()
      .min(1)
      .max(64, { abort: true })
      .refine((text) => controlCharacterAt(text, '') === undefined, {
        params: { refinement: REFINEMENTS.control_character, allowed: '' },
      }),
  )
  .max(64)
  .describe('Free-form labels; not part of contract identity.');

export const IsoDate = z
  .string()
  .regex(ISO_DATE_PATTERN, { abort: true })
  .refine(isCalendarDate, { params: { refinement: REFINEMENTS.calendar_date } })
  .describe('A calendar date, YYYY-MM-DD.');

/** A literal as authored: numbers must be plain decimals a double holds exactly; quote anything larger. */
export const Literal = z
  .union([z.string().max(4096), z.number(), z.boolean()])
  .describe('A literal; typed through the physical field it is compared with.');

export const ContractMetadata = z
  .strictObject({
    version: z
      .string()
      .regex(VERSION_PATTERN)
      .describe('Contract version MAJOR.MINOR.PATCH; authoritative over any constructor fallback.'),
    compatibility: z
      .enum(['backward', 'forward', 'full', 'none'])
      .describe('The compatibility promise consumers may rely on across versions.'),
  })
  .describe('Authored contract metadata: the version and compatibility used by the projection.');

export const Classification = z
  .enum(['public', 'internal', 'confidential', 'restricted'])
  .default('internal')
  .describe('Who may see values of this field.');

export const FieldSchema = z.strictObject({
  name: FieldName,
  type: PhysicalTypeText,
  nullable: z.boolean().default(true).describe('Whether the field may hold NULL.'),
  classification: Classification,
  critical_data_element: z
    .boolean()
    .default(false)
    .describe('Marks a critical data element (CDE) under data governance.'),
  authoritative_definitions: z
    .array(z.string().min(1).max(2048))
    .max(64)
    .default([])
    .describe('http(s) links to the authoritative definitions; normalized, sorted and deduplicated.'),
  deprecation: z
    .strictObject({
      guidance: z.string().min(1).max(4096).describe('What consumers should do instead.'),
      replaced_by: FieldName.optional().describe('The field of this resource that replaces this one.'),
      sunset: IsoDate.optional().describe('The date after which the field may be removed.'),
    })
    .optional()
    .describe('Deprecation guidance for consumers of this field.'),
  description: Prose.optional(),
  tags: Tags.optional(),
});

/** Where and how a resource runs: excluded from identity (target configuration). */
export const TargetConfig = z
  .strictObject({
    profile: z.string().min(1).max(128).optional(),
    environment: z.string().min(1).max(128).optional(),
    database: z.string().min(1).max(256).optional(),
    schema: z.string().min(1).max(256).optional(),
    warehouse: z.string().min(1).max(256).optional(),
    materialization: z.enum(['table', 'view', 'incremental', 'ephemeral']).optional(),
  })
  .describe('Target configuration; not part of contract identity.');

/** Observed operational state: excluded from identity (runtime state). */
export const RuntimeState = z
  .strictObject({
    state: z.enum(['active', 'paused', 'retired']).optional(),
    last_loaded_at: z.string().min(1).max(64).optional(),
    row_count: z.number().int().min(0).optional(),
  })
  .describe('Runtime state; not part of contract identity.');
