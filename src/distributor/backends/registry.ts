import type { BackendFactory, BackendOpenContext, DestinationBackend } from '../backend.js';
import type { DestinationConfig } from '../config/types.js';
import { LocalBackends } from './local/index.js';
import { createS3Backend } from './s3/index.js';

/** The kinds of destination a configuration may name (`kind:`). */
export type DestinationKind = DestinationConfig['kind'];

/**
 * How the run builds the backend of each destination kind. Every kind is a
 * peer here; the run knows none of them (docs/distributor.md#code-layout).
 */
export type BackendRegistry = {
  readonly [Kind in DestinationKind]: BackendFactory<Extract<DestinationConfig, { readonly kind: Kind }>>;
};

/**
 * The backends built into sealkit, made fresh for each run: local
 * destinations of one run that name one root share its lock and work area
 * (`LocalBackends`), never across runs. `replacements` swaps the factory of
 * a kind (a test hook, `distributeRun`'s `backends` option).
 */
export function backendRegistry(replacements: Partial<BackendRegistry> = {}): BackendRegistry {
  const locals = new LocalBackends();
  return {
    local: (config, context) => locals.create(config, context),
    s3: createS3Backend,
    ...replacements,
  };
}

/** The backend of one configured destination, from its kind's factory. */
export function createBackend(
  registry: BackendRegistry,
  config: DestinationConfig,
  context: BackendOpenContext,
): DestinationBackend {
  switch (config.kind) {
    case 'local':
      return registry.local(config, context);
    case 's3':
      return registry.s3(config, context);
  }
}
