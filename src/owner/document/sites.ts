import type { Site } from '../read.js';

/** The refusal site of each part of the owner document. */
export const DOCUMENT: Site = { reason: 'scoped_execution_document', role: 'owner' };
export const OWNER: Site = { reason: 'scoped_execution_owner', role: 'owner' };
export const OBJECT: Site = { reason: 'scoped_execution_object', role: 'owner' };
export const OBSERVATION: Site = { reason: 'scoped_execution_observation', role: 'owner' };
export const WORKLOAD: Site = { reason: 'scoped_execution_workload', role: 'owner' };
export const WRITE_BINDING: Site = { reason: 'scoped_execution_write_binding', role: 'owner' };
export const HANDOFF: Site = { reason: 'scoped_execution_handoff', role: 'owner' };
export const ORIGINALS: Site = { reason: 'scoped_execution_originals', role: 'owner' };
